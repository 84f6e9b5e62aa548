/**
 * The Vercel AI SDK as a client nobody here wrote: its own `DefaultChatTransport`, handed
 * `client.fetch`, against a server whose work is `streamText(…).toUIMessageStreamResponse()`
 * over a mock model, behind the reference `createIdempotencyHandler` — with the answer's
 * socket destroyed mid-stream by a front on 127.0.0.1.
 */
import { DefaultChatTransport, simulateReadableStream, streamText, type UIMessage, type UIMessageChunk } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from 'answer-once';
import { createIdempotencyHandler } from 'answer-once/server';
import { serve, type ServedHandler } from 'answer-once/server/node';
import { startCuttingFront, type CuttingFront } from '../support/cutting-front.js';

const WORDS = Array.from({ length: 20 }, (_, i) => `word${i} `);

function mockModel() {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunkDelayInMs: 2,
        chunks: [
          { type: 'text-start', id: 't1' },
          ...WORDS.map((delta) => ({ type: 'text-delta' as const, id: 't1', delta })),
          { type: 'text-end', id: 't1' },
          {
            type: 'finish',
            finishReason: { unified: 'stop', raw: undefined },
            usage: {
              inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 20, text: 20, reasoning: undefined },
            },
          },
        ],
      }),
    }),
  });
}

let calls = 0;
let origin: ServedHandler | undefined;
let front: CuttingFront | undefined;
afterEach(async () => {
  await front?.close();
  await origin?.close();
  front = origin = undefined;
  calls = 0;
});

async function rig(cuts: (number | undefined)[]) {
  origin = await serve(
    createIdempotencyHandler({
      scope: () => ({ user: 'u' }),
      handler: async (request) => {
        calls += 1;
        const { messages } = (await request.json()) as { messages: UIMessage[] };
        const prompt = messages.map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')).join('\n');
        return streamText({ model: mockModel(), prompt }).toUIMessageStreamResponse();
      },
    }),
  );
  front = await startCuttingFront(origin.url, cuts);
  return front;
}

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
    const server = await rig([8]);
    const client = createClient();
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
    expect(calls).toBe(1);
  });
});
