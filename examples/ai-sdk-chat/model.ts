/**
 * The demo's model: `MockLanguageModelV4` from `ai/test` (no API key, no network)
 * streaming its answer one token per `delayMs` through `simulateReadableStream`, so the
 * page visibly streams. Every call numbers itself ("Answer #3"), so a second model call
 * for one message would show on the page, not only in the footer's counter.
 */
import { simulateReadableStream } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';

const BODY =
  'answer-once gave your message one ID, and every retry, reconnect and reload carries it. ' +
  'The server ran the model once and keeps the answer as it streams, so a cut connection ' +
  'picks up where it broke and a reloaded page reads the same answer from the start: ' +
  'one intent, one model call, one answer.';

/** The tokens of call number `call`'s answer to `question`: words with their trailing space. */
export function answerTokens(call: number, question: string): string[] {
  const asked = question.trim().replace(/\s+/g, ' ').slice(0, 60);
  return `Answer #${call} to “${asked}”: ${BODY}`.split(/(?<= )/);
}

/** The tokens of the (pretend) system prompt every call sends before the question. */
const SYSTEM_PROMPT_TOKENS = 180;

export class DemoModel {
  /** Model calls so far: what a real model would bill. */
  calls = 0;

  constructor(readonly delayMs: number) {}

  /** A language model for one request; the call is counted when `streamText` starts it. */
  for(question: string): MockLanguageModelV4 {
    return new MockLanguageModelV4({
      doStream: async () => {
        this.calls += 1;
        const tokens = answerTokens(this.calls, question);
        // A plausible bill: a system prompt and the question in, one token a word out.
        const inputTokens = SYSTEM_PROMPT_TOKENS + Math.ceil(question.length / 4);
        return {
          stream: simulateReadableStream({
            chunkDelayInMs: this.delayMs,
            chunks: [
              { type: 'text-start', id: 'answer' },
              ...tokens.map((delta) => ({ type: 'text-delta' as const, id: 'answer', delta })),
              { type: 'text-end', id: 'answer' },
              {
                type: 'finish',
                finishReason: { unified: 'stop', raw: undefined },
                usage: {
                  inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: undefined, cacheWrite: undefined },
                  outputTokens: { total: tokens.length, text: tokens.length, reasoning: undefined },
                },
              },
            ],
          }),
        };
      },
    });
  }
}
