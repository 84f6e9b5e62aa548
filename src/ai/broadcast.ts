/**
 * One intent's chunks, handed to every reader of it: each subscriber gets every chunk
 * from the first (a late one catches up), then the live ones, so concurrent resumes of
 * one intent (StrictMode, two mounts) share one request. The source is read to its end
 * whoever is still listening, so the intent settles (its storage record is dropped) and
 * a stop's partial answer completes on the server.
 */
import type { UIMessageChunk } from 'ai';

export class ChunkBroadcast {
  readonly #chunks: UIMessageChunk[] = [];
  readonly #subscribers = new Set<ReadableStreamDefaultController<UIMessageChunk>>();
  #ended = false;
  #error: unknown;
  readonly done: Promise<void>;

  constructor(source: ReadableStream<UIMessageChunk>) {
    this.done = this.#pump(source);
  }

  /** What the source failed with, once it did. */
  get error(): unknown {
    return this.#error;
  }

  /** The number of readers still listening. */
  get listeners(): number {
    return this.#subscribers.size;
  }

  async #pump(source: ReadableStream<UIMessageChunk>): Promise<void> {
    const reader = source.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.#chunks.push(value);
        for (const subscriber of this.#subscribers) subscriber.enqueue(value);
      }
      this.#ended = true;
      for (const subscriber of this.#subscribers) subscriber.close();
    } catch (error) {
      this.#ended = true;
      this.#error = error ?? new Error('answer-once: the answer stream failed.');
      for (const subscriber of this.#subscribers) subscriber.error(this.#error);
    } finally {
      this.#subscribers.clear();
    }
  }

  /** A reader of every chunk so far and then the live ones; `onLeave` runs if it cancels before the end. */
  subscribe(onLeave?: () => void): ReadableStream<UIMessageChunk> {
    let self: ReadableStreamDefaultController<UIMessageChunk>;
    return new ReadableStream<UIMessageChunk>({
      start: (controller) => {
        self = controller;
        for (const chunk of this.#chunks) controller.enqueue(chunk);
        if (this.#error !== undefined) controller.error(this.#error);
        else if (this.#ended) controller.close();
        else this.#subscribers.add(controller);
      },
      cancel: () => {
        if (this.#subscribers.delete(self)) onLeave?.();
      },
    });
  }
}
