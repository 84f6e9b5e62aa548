/**
 * Exponential backoff with full jitter ("Exponential Backoff And Jitter", AWS
 * Architecture Blog, 2015): the n-th retry waits a uniformly random time in
 * `[0, min(cap, base · 2^(n-1)))`. Pure: the random source is injected, so tests and
 * simulations are reproducible.
 */

export interface BackoffPolicy {
  /** Delay ceiling of the first retry, in milliseconds. */
  readonly base: number;
  /** No single delay exceeds this, in milliseconds. */
  readonly cap: number;
  /** Returns a number in `[0, 1)`; `Math.random` in production. */
  readonly random: () => number;
}

/** The delay before retry number `retry` (1-based), in whole milliseconds. */
export function backoffDelay(retry: number, policy: BackoffPolicy): number {
  const ceiling = Math.min(policy.cap, policy.base * 2 ** Math.max(0, retry - 1));
  return Math.floor(policy.random() * ceiling);
}
