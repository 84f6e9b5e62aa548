/**
 * The pause of one waiter between two looks at the store: HTTP has no blocking command
 * and no pub/sub, so a waiter polls, first after `first` ms, then twice as long after
 * each look that found nothing new, up to `max`; `reset()` (something new) starts over.
 */
export class PollBackoff {
  readonly #first: number;
  readonly #max: number;
  #next: number;

  constructor(first: number, max: number) {
    this.#first = first;
    this.#max = max;
    this.#next = first;
  }

  reset(): void {
    this.#next = this.#first;
  }

  /** Sleeps the next pause, never past `until` (epoch ms), and returns early on `signal`'s abort. */
  async sleep(until: number, signal?: AbortSignal): Promise<void> {
    const pause = Math.min(this.#next, Math.max(0, until - Date.now()));
    this.#next = Math.min(this.#next * 2, this.#max);
    if (pause <= 0 || signal?.aborted) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, pause);
      signal?.addEventListener('abort', done, { once: true });
    });
  }
}
