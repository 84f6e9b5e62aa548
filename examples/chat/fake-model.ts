/**
 * A stand-in for an LLM: it does not stream, it takes a while, it costs one "call" each
 * time, and it never says the same thing twice — so a duplicate call would show on the
 * page as a second, different answer, and in the `model calls` counter.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface FakeModelOptions {
  /**
   * How long one answer takes, in milliseconds.
   * @default 2000
   */
  readonly delayMs?: number;
}

export interface ModelAnswer {
  /** The answer text; differs on every call. */
  readonly text: string;
  /** 1-based number of the model call that produced it. */
  readonly call: number;
}

const OPENERS = [
  'Good question.',
  'Here is how I see it.',
  'Short answer first.',
  'Let me think about that.',
  'Happy to help.',
  'Interesting one.',
];

const CLOSERS = [
  'Sending it twice would not have changed that: it was answered once.',
  'Retries reuse the same request ID, so this answer was paid for exactly once.',
  'If the network drops this reply, the retry replays it instead of asking me again.',
  'A double click joins this request instead of starting another one.',
];

export class FakeModel {
  readonly delayMs: number;
  #calls = 0;

  constructor(options: FakeModelOptions = {}) {
    const delayMs = options.delayMs ?? 2000;
    if (!Number.isFinite(delayMs) || delayMs < 0) {
      throw new TypeError('chat demo: `delayMs` must be a finite number of milliseconds ≥ 0.');
    }
    this.delayMs = delayMs;
  }

  /** How many times the model has been called since start. */
  get calls(): number {
    return this.#calls;
  }

  /**
   * Answers `prompt` after the configured delay (times `slowdown`). The call is counted
   * when it starts, as a paid API call would be; `signal` stops the wait.
   */
  async answer(
    prompt: string,
    { slowdown = 1, signal }: { slowdown?: number; signal?: AbortSignal } = {},
  ): Promise<ModelAnswer> {
    const call = ++this.#calls;
    await sleep(this.delayMs * slowdown, undefined, { signal });
    const opener = OPENERS[call % OPENERS.length];
    const closer = CLOSERS[call % CLOSERS.length];
    const stamp = new Date().toISOString().slice(11, 23);
    const topic = prompt.trim().replace(/\s+/g, ' ').slice(0, 80);
    return {
      call,
      text: `${opener} You asked “${topic}”. This is model call #${call}, written at ${stamp} UTC. ${closer}`,
    };
  }
}
