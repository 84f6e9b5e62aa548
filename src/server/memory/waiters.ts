import { MAX_TIMER_MS } from '../../core/options.js';

/** Called on every write to a key; returns nothing, re-checks the record itself. */
type Wake = () => void;

/** What a sleeper's check found: a value to settle with, or the time to check again. */
export type SleepVerdict<T> = { readonly settled: T } | { readonly sleepUntil: number };

/**
 * The sleepers of {@link MemoryStore}, per key: woken by the store's writes to their key
 * (`wake`) and by one timer at the time their check names — never a poll. `close()` ends
 * every sleeper, and every later one at once.
 */
export class KeyWaiters {
  readonly #now: () => number;
  readonly #waiters = new Map<string, Set<Wake>>();
  #closed = false;

  constructor(now: () => number) {
    this.#now = now;
  }

  /**
   * Re-checks every sleeper on `key` (a streamed answer's every append). A sleeper that
   * settles leaves the set as it is walked, which a `Set` allows; none joins meanwhile
   * (a settled sleeper's caller runs later, on the microtask queue).
   */
  wake(key: string): void {
    const wakes = this.#waiters.get(key);
    if (wakes) for (const wake of wakes) wake();
  }

  /** Ends every sleeper with its `onEnd()`; sleepers after this end at once. */
  close(): void {
    this.#closed = true;
    for (const wakes of [...this.#waiters.values()]) for (const wake of [...wakes]) wake();
  }

  /**
   * Resolves with `check()`'s value once it settles; until then sleeps — woken by every
   * write to `key`, and by a timer at the time `check` names — or ends with `onEnd()`
   * when `signal` aborts or the store closes.
   */
  sleepUntil<T>(key: string, signal: AbortSignal | undefined, check: () => SleepVerdict<T>, onEnd: () => T): Promise<T> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      /** When `timer` fires: a wake that names the same time leaves it armed. */
      let timerAt: number | undefined;
      const finish = (value: T): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        this.#unsubscribe(key, wake);
        resolve(value);
      };
      const abort = (): void => finish(onEnd());
      const wake = (): void => {
        if (this.#closed) {
          abort();
          return;
        }
        const verdict = check();
        if ('settled' in verdict) {
          finish(verdict.settled);
          return;
        }
        if (verdict.sleepUntil === timerAt) return;
        clearTimeout(timer);
        timerAt = verdict.sleepUntil;
        // Timers hold at most 2³¹−1 ms; a longer sleep wakes early and sleeps again.
        const delay = verdict.sleepUntil - this.#now();
        timer = setTimeout(
          () => {
            timerAt = undefined;
            wake();
          },
          Math.min(MAX_TIMER_MS, Math.max(1, delay)),
        );
      };
      if (signal?.aborted) return resolve(onEnd());
      signal?.addEventListener('abort', abort); // `finish` removes it; an AbortSignal fires once
      this.#subscribe(key, wake);
      wake();
    });
  }

  #subscribe(key: string, wake: Wake): void {
    let wakes = this.#waiters.get(key);
    if (!wakes) this.#waiters.set(key, (wakes = new Set()));
    wakes.add(wake);
  }

  #unsubscribe(key: string, wake: Wake): void {
    const wakes = this.#waiters.get(key);
    wakes?.delete(wake);
    if (wakes?.size === 0) this.#waiters.delete(key);
  }
}
