/**
 * The demo's model: `MockLanguageModelV4` from `ai/test` (no API key, no network)
 * streaming its answer one token per `delayMs` through `simulateReadableStream`, so the
 * page visibly streams. Every call to a question numbers itself ("Answer #3"), so a
 * second model call for one message would show on the page, not only in the footer's
 * counter.
 *
 * A message asking to book ("book a table for 2 at 8") makes it an agent of two steps:
 * first it calls the `bookTable` tool (which asks the person before it runs), then it
 * answers with what the tool returned, or that the person said no. Those
 * two steps' texts depend only on the conversation, as a re-run's must for the journal to
 * continue the answer in place (docs/ai-sdk.md, "Keep the turn deterministic").
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

/** What `bookTable` is called with. */
export interface BookingRequest {
  readonly people: number;
  /** "20:00". */
  readonly time: string;
}

/** The booking a message asks for ("book a table for 2 at 8"), or undefined when it asks none. */
export function bookingAskedIn(question: string): BookingRequest | undefined {
  if (!/\bbook\b/i.test(question)) return undefined;
  const people = Number(/\bfor (\d{1,2})\b/i.exec(question)?.[1] ?? 2);
  const [, hour = '8', minutes = '00'] = /\bat (\d{1,2})(?:[:.h](\d\d))?/i.exec(question) ?? [];
  const hours = Number(hour) % 24;
  const evening = hours > 0 && hours < 12 ? hours + 12 : hours;
  return { people: Math.max(1, people), time: `${String(evening).padStart(2, '0')}:${minutes}` };
}

/** The first step of a booking turn: what the model says before it calls the tool. */
export const bookingIntro = ({ people, time }: BookingRequest): string => `Booking a table for ${people} at ${time}. `;

/** What became of the booking: the tool's JSON result, its error, or the person's no. */
export type BookingResult = { ok: true; value: unknown } | { ok: false; error: string } | { ok: false; denied: true };

/** The second step: the booking's outcome as the tool gave it, or as the person decided it. */
export function bookingOutcome(result: BookingResult): string {
  if ('denied' in result) return 'Alright, I did not book it: no table is held for you.';
  if (result.ok) {
    const { table, confirmation } = result.value as { table?: number; confirmation?: string };
    return `Done: table ${table} is yours, confirmation ${confirmation}. Enjoy your dinner!`;
  }
  if (/may or may not have happened/.test(result.error)) {
    return (
      'The booking service went down while it was booking your table, so nobody knows whether the ' +
      'booking went through. It was not tried again, so there is at most one: please check with the ' +
      'restaurant before you book again.'
    );
  }
  return `The table could not be booked: ${result.error}`;
}

/** The tokens of the (pretend) system prompt every call sends before the question. */
const SYSTEM_PROMPT_TOKENS = 180;

/** The tool results of the turn so far: those after the conversation's last user message. */
function toolResultsOfTurn(prompt: Parameters<MockLanguageModelV4['doStream']>[0]['prompt']) {
  const turn = prompt.slice(prompt.map((message) => message.role).lastIndexOf('user') + 1);
  return turn.flatMap((message) =>
    message.role === 'tool' ? message.content.filter((part) => part.type === 'tool-result') : [],
  );
}

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never;

export interface ModelHooks {
  /** Called as the model starts step `step` (0, 1, …) of a turn. */
  readonly stepStarted?: (step: number) => void;
}

export class DemoModel {
  /** Model calls so far: what a real model would bill. */
  calls = 0;

  constructor(readonly delayMs: number) {}

  /** A language model for one request; the call is counted when `streamText` starts it. */
  for(question: string, hooks: ModelHooks = {}): MockLanguageModelV4 {
    const booking = bookingAskedIn(question);
    return new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        this.calls += 1;
        const results = toolResultsOfTurn(prompt);
        hooks.stepStarted?.(results.length);
        const parts: StreamPart[] = [];
        let text: string;
        if (!booking) {
          text = answerTokens(this.calls, question).join('');
        } else if (results.length === 0) {
          text = bookingIntro(booking);
          parts.push({ type: 'tool-call', toolCallId: 'booking', toolName: 'bookTable', input: JSON.stringify(booking) });
        } else {
          const { output } = results[0]!;
          text = bookingOutcome(
            output.type === 'json'
              ? { ok: true, value: output.value }
              : output.type === 'execution-denied'
                ? { ok: false, denied: true }
                : { ok: false, error: output.type === 'error-text' ? output.value : JSON.stringify(output) },
          );
        }
        const tokens = text.split(/(?<= )/);
        // A plausible bill: a system prompt and the question in, one token a word out.
        const inputTokens = SYSTEM_PROMPT_TOKENS + Math.ceil(question.length / 4);
        return {
          stream: simulateReadableStream({
            chunkDelayInMs: this.delayMs,
            chunks: [
              { type: 'text-start', id: 'answer' },
              ...tokens.map((delta) => ({ type: 'text-delta' as const, id: 'answer', delta })),
              { type: 'text-end', id: 'answer' },
              ...parts,
              {
                type: 'finish',
                finishReason: { unified: parts.length > 0 ? 'tool-calls' : 'stop', raw: undefined },
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
