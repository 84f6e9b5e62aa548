/**
 * The server a `useChat` app has: `createIdempotencyHandler` whose work is
 * `streamText(…).toUIMessageStreamResponse()` over a mock model from `ai/test` writing
 * `WORDS` (one every `delayMs`) — on 127.0.0.1 behind the cutting front
 * (`startAiChatServer`), or in-process (`aiChatWork` for a handler of your own).
 * `breakFirstAfter: k` breaks the first run's body after k events (the model's stream
 * failed mid-answer): the intent fails, the client resends, the work runs again and the
 * answer restarts (PROTOCOL.md § 14.7) — unless the new run writes the bytes the first one
 * logged, which it continues (§ 14.12): `rerunWords` makes the runs after the first differ.
 */
import { simulateReadableStream, streamText, type UIMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import type { IdempotentRouteHandler } from 'answer-once/server';
import { type LoopbackRigOptions, startLoopbackRig } from './loopback-rig.js';

export const WORDS = Array.from({ length: 20 }, (_, i) => `word${i} `);

/** A mock model streaming `words` (one every `delayMs`) that reports `inputTokens` and one output token a word. */
export function mockModel(words: readonly string[] = WORDS, delayMs = 2, inputTokens = 3) {
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
              inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: words.length, text: words.length, reasoning: undefined },
            },
          },
        ],
      }),
    }),
  });
}

/** `response` with its body broken (errored) after `events` SSE events. */
function breakAfter(response: Response, events: number): Response {
  let seen = 0;
  const body = response.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (let i = 0; i < chunk.length; i++) {
          if (chunk[i] === 10 && chunk[i + 1] === 10) seen += 1;
          if (seen === events) {
            controller.enqueue(chunk.subarray(0, i + 2));
            return controller.error(new Error('the model stream broke'));
          }
        }
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: response.status, headers: response.headers });
}

export interface AiChatOptions {
  readonly words?: readonly string[];
  readonly delayMs?: number;
  readonly breakFirstAfter?: number;
  /** The words of every run after the first (default: the first run's). */
  readonly rerunWords?: readonly string[];
  /** The model answers `echo(<last user text>) ` then `words`: what a spec checks the answer belongs to. */
  readonly echo?: boolean;
}

/** The chat route's work: the mock model's answer to the request's messages, as a UI message stream. */
export function aiChatWork(options: AiChatOptions = {}): IdempotentRouteHandler {
  let runs = 0;
  return async (request, { signal }) => {
    runs += 1;
    const { messages } = (await request.json()) as { messages: UIMessage[] };
    const prompt = messages.map((m) => m.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')).join('\n');
    const last = messages.filter((m) => m.role === 'user').at(-1);
    const asked = last?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    const own = runs > 1 && options.rerunWords ? options.rerunWords : options.words;
    const words = options.echo ? [`echo(${asked}) `, ...(own ?? [])] : own;
    const response = streamText({
      model: mockModel(words, options.delayMs),
      prompt,
      abortSignal: signal,
    }).toUIMessageStreamResponse();
    const broken = runs === 1 && options.breakFirstAfter !== undefined;
    return broken ? breakAfter(response, options.breakFirstAfter!) : response;
  };
}

export async function startAiChatServer(options: AiChatOptions & LoopbackRigOptions = {}) {
  const rig = await startLoopbackRig(aiChatWork(options), options);
  return { ...rig, api: `${rig.url}/api/chat` };
}
