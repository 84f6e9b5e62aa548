/**
 * One intent's chunks, handed to every reader of it: each subscriber gets every chunk
 * from the first (a late one catches up), then the live ones, so concurrent resumes of
 * one intent (StrictMode, two mounts) share one request. The source is read to its end
 * whoever is still listening, so the intent settles (its storage record is dropped) and
 * a stop's partial answer completes on the server.
 *
 * A subscriber is handed a chunk only when its reader asks for one (no read-ahead), so
 * its `position()` is the position of the last chunk its reader took: what `useChat`
 * has shown, which a stop names (PROTOCOL.md § 14.8).
 */
import type { UIMessageChunk } from 'ai';
import type { PositionedChunk } from './ui-chunks.js';

/** One reader of a {@link ChunkBroadcast}. */
export interface Subscription {
  readonly stream: ReadableStream<UIMessageChunk>;
  /** The position (`<generation>.<offset>`) of the last chunk the reader took, if any had one. */
  position(): string | undefined;
  /** Hands the reader no more chunks: its stream ends (closes) once `until` settles. */
  hush(until: Promise<void>): void;
  /** Settles when the reader is done: its stream ended (closed or errored) or was cancelled. */
  readonly ended: Promise<void>;
}

export class ChunkBroadcast {
  readonly #items: PositionedChunk[] = [];
  #ended = false;
  #error: unknown;
  /** Resolves when an item arrives or the source ends; replaced each time. */
  #changed!: Promise<void>;
  #wake!: () => void;
  readonly done: Promise<void>;

  constructor(source: ReadableStream<PositionedChunk>) {
    this.#arm();
    this.done = this.#pump(source);
  }

  /** What the source failed with, once it did. */
  get error(): unknown {
    return this.#error;
  }

  #arm(): void {
    this.#changed = new Promise<void>((resolve) => (this.#wake = resolve));
  }

  #notify(): void {
    const wake = this.#wake;
    this.#arm();
    wake();
  }

  async #pump(source: ReadableStream<PositionedChunk>): Promise<void> {
    const reader = source.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.#items.push(value);
        this.#notify();
      }
    } catch (error) {
      this.#error = error ?? new Error('answer-once: the answer stream failed.');
    } finally {
      this.#ended = true;
      this.#notify();
    }
  }

  /** A reader of every chunk so far and then the live ones, one per read. */
  subscribe(): Subscription {
    let index = 0;
    let at: string | undefined;
    let cancelled = false;
    let hushedUntil: Promise<void> | undefined;
    let hushed!: () => void;
    const hushing = new Promise<void>((resolve) => (hushed = resolve));
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    const stream = new ReadableStream<UIMessageChunk>(
      {
        pull: async (controller) => {
          // Bounded: each turn waits for the source's next item, its end, or a hush.
          for (;;) {
            if (hushedUntil) {
              await hushedUntil.catch(() => undefined);
              if (!cancelled) controller.close();
              return end();
            }
            if (index < this.#items.length) break;
            if (this.#error !== undefined) {
              controller.error(this.#error);
              return end();
            }
            if (this.#ended) {
              controller.close();
              return end();
            }
            await Promise.race([this.#changed, hushing]);
            if (cancelled) return;
          }
          const item = this.#items[index++]!;
          at = item.at ?? at;
          controller.enqueue(item.chunk);
        },
        cancel: () => {
          cancelled = true;
          end();
        },
      },
      { highWaterMark: 0 },
    );
    const hush = (until: Promise<void>) => {
      hushedUntil ??= until;
      hushed();
    };
    return { stream, position: () => at, hush, ended };
  }
}
