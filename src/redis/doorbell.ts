/**
 * A wake-up flag for one waiter: `ring()` from a pub/sub message, `wait()` until rung, a
 * timer, or an abort. A ring that lands while the waiter is busy reading Redis is kept,
 * so no message is lost between a read and the next wait.
 */
/** setTimeout's limit; a longer delay would fire at once (and turn a wait into a busy loop). */
const MAX_TIMER_MS = 2 ** 31 - 1;

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
