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

  async wait(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (!this.#rung && !signal?.aborted) {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', done);
          this.#wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, Math.min(Math.max(0, timeoutMs), MAX_TIMER_MS));
        signal?.addEventListener('abort', done, { once: true });
        this.#wake = done;
      });
    }
    this.#rung = false;
  }
}
