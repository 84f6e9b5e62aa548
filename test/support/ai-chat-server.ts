/**
 * The server a `useChat` app has, on 127.0.0.1: `createIdempotencyHandler` whose work is
 * `streamText(…).toUIMessageStreamResponse()` over a mock model from `ai/test` writing
 * `words` (one every `delayMs`), behind a front that destroys chosen answers' sockets.
 */
import { simulateReadableStream, streamText, type UIMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createIdempotencyHandler } from 'answer-once/server';
import { serve } from 'answer-once/server/node';
import { startCuttingFront } from './cutting-front.js';

export const WORDS = Array.from({ length: 20 }, (_, i) => `word${i} `);

function mockModel(words: readonly string[] = WORDS, delayMs = 2) {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunkDelayInMs: delayMs,
        chunks: [
          { type: 'text-start', id: 't1' },
          ...words.map((delta) => ({ type: 'text-delta' as const, id: 't1', delta })),
          { type: 'text-end', id: 't1' },
          {
            type: 'finish',
            finishReason: { unified: 'stop', raw: undefined },
            usage: {
              inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: words.length, text: words.length, reasoning: undefined },
            },
          },
        ],
      }),
    }),
  });
}

export async function startAiChatServer(options: { cuts?: (number | undefined)[]; delayMs?: number } = {}) {
  const stats = { modelCalls: 0 };
  const origin = await serve(
    createIdempotencyHandler({
      scope: () => ({ user: 'u' }),
      handler: async (request, { signal }) => {
        stats.modelCalls += 1;
        const { messages } = (await request.json()) as { messages: UIMessage[] };
        const prompt = messages.map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')).join('\n');
        return streamText({
          model: mockModel(WORDS, options.delayMs),
          prompt,
          abortSignal: signal,
        }).toUIMessageStreamResponse();
      },
    }),
  );
  const front = await startCuttingFront(origin.url, options.cuts ?? []);
  return {
    url: front.url,
    api: `${front.url}/api/chat`,
    stats,
    front,
    async close() {
      await front.close();
      await origin.close();
    },
  };
}
