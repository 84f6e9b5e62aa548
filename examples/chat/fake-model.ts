/**
 * A stand-in for an LLM: it thinks a while, then streams its answer a word at a time,
 * costs one "call" each time and never says the same thing twice — so a duplicate call
 * would show on the page as a second, different answer, and in the `model calls`
 * counter. It keeps what each call wrote (`log`), so a test can compare the page's text
 * with the model's, token for token.
 */
import { setTimeout as sleep } from 'node:timers/promises';

export interface FakeModelOptions {
  /**
   * How long one whole answer takes, in milliseconds: a quarter thinking (until the
   * first token), the rest writing.
   * @default 2000
   */
  readonly delayMs?: number;
}

/** What one model call wrote. */
export interface ModelCall {
  /** 1-based number of the call. */
  readonly call: number;
  /** The tokens written so far, joined. */
  readonly text: string;
  /** The call ended (its last token written, or stopped). */
  readonly done: boolean;
  /** The call was stopped (its `signal` aborted) before its last token. */
  readonly stopped: boolean;
}

export interface ModelStream {
  readonly call: number;
  /** The answer's tokens as they are written; it ends early, cleanly, when `signal` aborts. */
  readonly tokens: ReadableStream<string>;
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
  'If the network drops this reply, the retry picks it up where it broke instead of asking me again.',
  'A double click joins this request instead of starting another one.',
];

/** The tokens of the (pretend) system prompt every call sends before the question. */
const SYSTEM_PROMPT_TOKENS = 180;

/** Most calls kept in `log` (the oldest go first). */
const LOG_LIMIT = 200;

export class FakeModel {
  readonly delayMs: number;
  #calls = 0;
  readonly #log = new Map<number, ModelCall>();

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

  /** How long the model thinks before its first token (times a `slowdown`). */
  get thinkMs(): number {
    return Math.round(this.delayMs / 4);
  }

  /** What the latest calls wrote, oldest first. */
  get log(): readonly ModelCall[] {
    return [...this.#log.values()];
  }

  /**
   * Starts answering `prompt`: resolves with the token stream once the first token is
   * ready (after thinking `thinkMs`, or the call's own `thinkMs`), as an LLM API answers its headers; the
   * tokens then come at the usual pace. The
   * call is counted when it starts, as a paid API call would be; `signal` stops it.
   */
  async stream(
    prompt: string,
    {
      thinkMs = this.thinkMs,
      signal,
      reportUsage,
    }: {
      /** How long this call thinks before its first token (a slow model). */
      thinkMs?: number;
      signal?: AbortSignal;
      /** Told what the call cost as it ends (stopped or not), as a real model API reports usage. */
      reportUsage?: (usage: { inputTokens: number; outputTokens: number }) => void;
    } = {},
  ): Promise<ModelStream> {
    const call = ++this.#calls;
    const words = answerText(call, prompt).split(/(?<= )/);
    let entry: ModelCall = { call, text: '', done: false, stopped: false };
    const record = (next: Partial<ModelCall>) => {
      entry = { ...entry, ...next };
      this.#log.set(call, entry);
      if (this.#log.size > LOG_LIMIT) this.#log.delete(this.#log.keys().next().value!);
    };
    record({});
    try {
      await sleep(thinkMs, undefined, { signal });
    } catch (error) {
      record({ done: true, stopped: true });
      throw error;
    }
    const gapMs = (this.delayMs - this.thinkMs) / words.length;
    // A plausible bill: a system prompt and the question in, one token a word out.
    const inputTokens = SYSTEM_PROMPT_TOKENS + Math.ceil(prompt.length / 4);
    let index = 0;
    const bill = () => reportUsage?.({ inputTokens, outputTokens: index });
    const tokens = new ReadableStream<string>({
      async pull(controller) {
        if (index > 0) await sleep(gapMs).catch(() => undefined);
        if (signal?.aborted) {
          record({ done: true, stopped: true });
          bill();
          return controller.close();
        }
        const word = words[index++]!;
        record({ text: entry.text + word, done: index === words.length });
        controller.enqueue(word);
        if (index === words.length) {
          bill();
          controller.close();
        }
      },
      // Its reader let go before the last token (a stop that reached the answer's stream
      // before the model's signal): the call ended early, as a stopped one does.
      cancel() {
        record({ done: true, stopped: index < words.length });
        bill();
      },
    });
    return { call, tokens };
  }
}

function answerText(call: number, prompt: string): string {
  const opener = OPENERS[call % OPENERS.length];
  const closer = CLOSERS[call % CLOSERS.length];
  const stamp = new Date().toISOString().slice(11, 23);
  const topic = prompt.trim().replace(/\s+/g, ' ').slice(0, 80);
  return `${opener} You asked “${topic}”. This is model call #${call}, written at ${stamp} UTC. ${closer}`;
}
