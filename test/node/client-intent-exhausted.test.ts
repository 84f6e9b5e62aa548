/**
 * `intent-exhausted` (409, PROTOCOL.md § 9) is final wherever the client meets it: the
 * server will not run the intent again, so nothing resends its ID — `send` and `fetch`
 * stop at once (a body mid-reconnect too) with `IntentExhaustedError`, and the send
 * controller and the AI SDK transport make the next "try again" a new intent.
 */
import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { isIntentExhaustedError, SendController } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { BASE, scriptedClient } from '../support/scripted-fetch.js';
import { errorMarker, positionedEvents } from '../support/sse-response.js';

const exhausted = () =>
  new Response(
    JSON.stringify({
      type: 'https://answer-once.dev/problems/intent-exhausted',
      title: 'Intent exhausted',
      status: 409,
      code: 'intent-exhausted',
    }),
    { status: 409, headers: { 'content-type': 'application/problem+json' } },
  );

describe('intent-exhausted is final', () => {
  it('client.send rejects with IntentExhaustedError after one request, not retryable', async () => {
    const { server, client } = scriptedClient(() => exhausted(), { retry: { limit: 3, delay: 0 } });
    const error = await client.send(`${BASE}chat`, { method: 'POST', json: { q: 1 } }).catch((e: unknown) => e);
    expect(isIntentExhaustedError(error)).toBe(true);
    expect(error).toMatchObject({ status: 409, retryable: false });
    expect(server.seen).toHaveLength(1);
  });

  it('client.fetch resolves with the 409 after one request', async () => {
    const { server, client } = scriptedClient(() => exhausted(), { retry: { limit: 3, delay: 0 } });
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ code: 'intent-exhausted' });
    expect(server.seen).toHaveLength(1);
  });

  it('client.fetch: a body whose error-marker resend is answered intent-exhausted ends with IntentExhaustedError, no more requests', async () => {
    const encoder = new TextEncoder();
    const { server, client, settled } = scriptedClient(
      (_request, n) => {
        if (n > 1) return exhausted();
        const parts = [...positionedEvents(41, ['one']), errorMarker()];
        return new Response(
          new ReadableStream({
            pull(controller) {
              const part = parts.shift();
              if (part === undefined) controller.close();
              else controller.enqueue(encoder.encode(part));
            },
          }),
          { headers: { 'content-type': 'text/event-stream', 'x-idempotent-generation': '41' } },
        );
      },
      { retry: { limit: 3, delay: 0 } },
    );
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    const error = await response.text().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(isIntentExhaustedError(error)).toBe(true);
    expect(server.seen).toHaveLength(2);
    expect(settled()).toMatchObject([{ outcome: 'failed' }]);
  });

  it('SendController: the send after it is a new intent with a new ID', async () => {
    const { server, client } = scriptedClient((_request, n) => (n === 1 ? exhausted() : Response.json({ ok: true })));
    const controller = new SendController(client, `${BASE}chat`);
    const failed = await controller.send({ method: 'POST', json: { q: 1 } });
    expect(failed.status).toBe('failed');
    expect(isIntentExhaustedError(failed.error)).toBe(true);
    const answered = await controller.send({ method: 'POST', json: { q: 1 } });
    expect(answered).toMatchObject({ status: 'answered', data: { ok: true } });
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1]!.id).not.toBe(server.seen[0]!.id);
  });

  it('answerOnceTransport: fails the send with IntentExhaustedError, and sending the message again is a new intent', async () => {
    const { server, client } = scriptedClient((_request, n) =>
      n === 1
        ? exhausted()
        : new Response('data: {"type":"start"}\n\ndata: [DONE]\n\n', {
            headers: { 'content-type': 'text/event-stream' },
          }),
    );
    const transport = answerOnceTransport({ client, api: `${BASE}chat` });
    const user: UIMessage = { id: 'msg-user-00000001', role: 'user', parts: [{ type: 'text', text: 'hi' }] };
    const send = () =>
      transport.sendMessages({
        trigger: 'submit-message',
        chatId: 'chat-1',
        messageId: undefined,
        messages: [user],
        abortSignal: undefined,
      });
    const error = await send().catch((e: unknown) => e);
    expect(isIntentExhaustedError(error)).toBe(true);
    const stream = await send();
    await stream.pipeTo(new WritableStream());
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1]!.id).not.toBe(server.seen[0]!.id);
  });
});
