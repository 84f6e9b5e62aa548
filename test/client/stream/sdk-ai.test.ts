/**
 * The Vercel AI SDK as a client nobody here wrote: its own `DefaultChatTransport`, handed
 * `client.fetch`, against a server whose work is `streamText(…).toUIMessageStreamResponse()`
 * over a mock model, behind the reference `createIdempotencyHandler` — with the answer's
 * socket destroyed mid-stream by a front on 127.0.0.1.
 */
import { DefaultChatTransport, type UIMessage, type UIMessageChunk } from 'ai';
import { createClient, streaming } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { aiChatWork, WORDS } from '../../support/ai-chat-server.js';
import { loopbackRigs } from '../../support/loopback-rig.js';

const rig = loopbackRigs();

async function read(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
  return chunks;
}

const textOf = (chunks: UIMessageChunk[]) =>
  chunks.map((chunk) => (chunk.type === 'text-delta' ? chunk.delta : '')).join('');

const user: UIMessage = { id: 'msg-user-00000001', role: 'user', parts: [{ type: 'text', text: 'hi' }] };

describe("ai's DefaultChatTransport with client.fetch", () => {
  it('reads the whole answer once when its stream is cut mid-answer, with one model call', async () => {
    const server = await rig(aiChatWork(), { cuts: [8] });
    const client = createClient({ streaming });
    const transport = new DefaultChatTransport<UIMessage>({ api: `${server.url}/api/chat`, fetch: client.fetch });
    const stream = await transport.sendMessages({
      trigger: 'submit-message',
      chatId: 'chat-1',
      messageId: undefined,
      messages: [user],
      abortSignal: undefined,
    });
    const chunks = await read(stream);
    expect(textOf(chunks)).toBe(WORDS.join(''));
    expect(chunks.filter((chunk) => chunk.type === 'start')).toHaveLength(1);
    expect(chunks.at(-1)?.type).toBe('finish');
    expect(server.cuts()).toBe(1);
    expect(server.requests.filter((r) => r.method === 'POST')).toHaveLength(2);
    // The reconnect resumed the live log after the last whole event (§ 14.5), not from the start.
    expect(server.requests.at(-1)?.lastEventId).toMatch(/^\d+\.\d+$/);
    expect(server.calls()).toBe(1);
  });
});
