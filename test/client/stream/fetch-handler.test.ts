/**
 * client.fetch against the reference handler (createIdempotencyHandler over MemoryStore,
 * which keeps answer logs, § 14.9) on 127.0.0.1, behind a front that destroys sockets
 * mid-body: Range resumes of plain bodies, attach, stop, and fetch's own error semantics.
 */

import { createClient, streaming } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { loopbackRigs } from '../../support/loopback-rig.js';
import { tokenResponse } from '../../support/token-stream.js';

const TOKENS = Array.from({ length: 30 }, (_, i) => `t${i} `);

const loopback = loopbackRigs();

const post = (requestId?: string, body = '{"q":"hi"}'): RequestInit => ({
  method: 'POST',
  body,
  headers: { 'content-type': 'application/json', ...(requestId && { 'X-Request-Id': requestId }) },
});

/**
 * The model's tokens as SSE or plain text, one every `delayMs`, behind the reference
 * handler; `send` posts to its chat route through `client.fetch` of a streaming client.
 */
async function rig(kind: 'sse' | 'text', cuts: (number | undefined)[] = [], delayMs = 5) {
  const server = await loopback(
    async (request, { signal }) => {
      await request.text();
      return tokenResponse(TOKENS, { kind, delayMs, signal });
    },
    { cuts },
  );
  const client = createClient({ streaming });
  const send = (requestId?: string, body?: string) => client.fetch(`${server.url}/api/chat`, post(requestId, body));
  return { server, send };
}

/** What a caller sees of `response`: its `header`, and its whole text. */
const seen = async (response: Response, header: string) => [response.headers.get(header), await response.text()];

describe('client.fetch on the reference handler', () => {
  it('resumes a plain-text answer cut mid-body by Range and generation: the exact text once, one model call', async () => {
    const { server, send } = await rig('text', [40]);
    const response = await send();
    expect(response.headers.get('x-idempotent-generation')).toMatch(/^\d+$/);
    expect(await response.text()).toBe(TOKENS.join(''));
    expect(server.cuts()).toBe(1);
    expect(server.requests[1]?.range).toBe('bytes=40-');
    expect(server.calls()).toBe(1);
  });

  it('shows attach and replay on the Response: a second fetch of a live intent attaches, a later one replays', async () => {
    const { server, send } = await rig('sse');
    const id = 'req-attach-0000001';
    const first = await send(id);
    const reader = first.body!.getReader();
    await reader.read();
    const second = await send(id);
    expect(second.headers.get('x-idempotent-attached')).toBe('true');
    const rest: Uint8Array[] = [];
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest.push(chunk.value);
    const attachedText = await second.text();
    expect(attachedText).toContain('data: t29 ');
    expect(await seen(await send(id), 'x-idempotent-replayed')).toEqual(['true', attachedText]);
    expect(server.calls()).toBe(1);
  });

  it('ends the body cleanly after a stop, with the stop marker; a later fetch replays the stopped partial answer', async () => {
    const { server, send } = await rig('sse', [], 20);
    const id = 'req-stop-00000001';
    const response = await send(id);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value);
    const stop = await fetch(`${server.url}/api/status/${id}`, { method: 'DELETE' });
    expect(stop.status).toBe(202);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    expect(text).toMatch(/event: answer-once\.stopped\ndata: \{\}\nid: \d+\.\d+\n\n$/);
    expect(text).not.toContain('data: t29 ');
    expect(await seen(await send(id), 'x-idempotent-stopped')).toEqual(['true', text]);
    expect(server.calls()).toBe(1);
  });

  it('resolves with the error status, as fetch does, when the ID was used for another body (422)', async () => {
    const { server, send } = await rig('sse', [], 1);
    const id = 'req-reused-000001';
    await (await send(id)).text();
    const reused = await send(id, '{"q":"other"}');
    expect(reused.status).toBe(422);
    expect(await reused.json()).toMatchObject({ code: 'request-id-reused' });
    expect(server.calls()).toBe(1);
  });
});
