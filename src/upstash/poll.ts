/**
 * The pause of one waiter between two looks at the store: HTTP has no blocking command
 * and no pub/sub, so a waiter polls, first after `first` ms, then twice as long after
 * each look that found nothing new, up to `max`. A pause ends early on the caller's
 * signal and on `wakeAll` (the store closing): plain callbacks, no `AbortSignal` of the
 * store's own — on Workers one request cannot touch another's I/O objects, signals included.
 */
export class PollBackoff {
  readonly #max: number;
  readonly #wakers: Set<() => void>;
  #next: number;

  constructor(first: number, max: number, wakers: Set<() => void>) {
    this.#max = max;
    this.#next = first;
    this.#wakers = wakers;
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
        this.#wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, pause);
      signal?.addEventListener('abort', done, { once: true });
      this.#wakers.add(done);
    });
  }
}
