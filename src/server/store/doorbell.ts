import { MAX_TIMER_MS } from '../../core/options.js';

/**
 * A wake-up flag for one waiter: `ring()` from a notification (a pub/sub message, a
 * NOTIFY), `wait()` until rung, a timer, or an abort. A ring that lands while the waiter
 * is busy reading the store is kept, so no message is lost between a read and the next wait.
 */
export class Doorbell {
  #rung = false;
  #wake: (() => void) | undefined;

  readonly ring = (): void => {
    this.#rung = true;
    this.#wake?.();
  };

  /** Not an async function: a waiter parked here (a held stream's stop watch) keeps no suspended frame of its own. */
  wait(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (this.#rung || signal?.aborted) {
      this.#rung = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.#wake = undefined;
        this.#rung = false;
        resolve();
      };
      const timer = setTimeout(done, Math.min(Math.max(0, timeoutMs), MAX_TIMER_MS));
      signal?.addEventListener('abort', done, { once: true });
      this.#wake = done;
    });
  }
}
