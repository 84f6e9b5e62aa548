import { numberOption, timerOption } from '../../core/options.js';

/** Lease, retention and run-bound options shared by `runOnce` and `createIdempotencyHandler`. */
export interface LeaseOptions {
  /**
   * How long a worker holds an intent without renewing. A worker that died is taken
   * over at most this long after its last heartbeat.
   * @default 10_000
   */
  leaseMs?: number;
  /**
   * How often a running worker renews its lease. Must be shorter than `leaseMs`.
   * @default leaseMs / 3
   */
  heartbeatMs?: number;
  /**
   * How long a COMPLETED answer is kept and replayed.
   * @default 86_400_000 (24 hours)
   */
  completedTtlMs?: number;
  /**
   * How long a FAILED attempt is remembered (the same intent may run again meanwhile).
   * @default 3_600_000 (1 hour)
   */
  failedTtlMs?: number;
  /**
   * The longest the work may run. Past it the work's `signal` aborts and the attempt
   * FAILS (a resend runs it again), so a handler that never ends does not hold its
   * intent, renewing its lease, forever.
   * @default 600_000 (10 minutes)
   */
  maxRunMs?: number;
  /**
   * How many times the work of one intent may run, whatever its clients send: the first
   * run, each run again after a failure and each takeover of a dead worker's lapsed lease
   * all count. An intent whose last allowed run failed, or that is claimed once more, is
   * settled as exhausted: every later attempt gets the final 409 `intent-exhausted`
   * (`runOnce` throws `IntentExhaustedError`) and the work never runs again for it. The
   * count lives as long as the intent's record (PROTOCOL.md § 5.7).
   * @default 3
   */
  maxRuns?: number;
  /**
   * The longest one store call (acquire, get, wait beyond its own timeout, complete,
   * fail) may take before it counts as failed: the handler then answers 503
   * `store-unavailable` + `Retry-After`, as for a store that rejects (PROTOCOL.md § 10).
   * @default 5_000
   */
  storeTimeoutMs?: number;
}

export interface ResolvedLeaseOptions {
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly completedTtlMs: number;
  readonly failedTtlMs: number;
  readonly maxRunMs: number;
  readonly maxRuns: number;
  readonly storeTimeoutMs: number;
}

/**
 * Only the lease options of a larger options object: what a run keeps for its whole life
 * (a held stream's), rather than a copy of every handler option.
 */
export function leaseOf(options: ResolvedLeaseOptions): ResolvedLeaseOptions {
  const { leaseMs, heartbeatMs, completedTtlMs, failedTtlMs, maxRunMs, maxRuns, storeTimeoutMs } = options;
  return { leaseMs, heartbeatMs, completedTtlMs, failedTtlMs, maxRunMs, maxRuns, storeTimeoutMs };
}

/** The defaults of {@link LeaseOptions} (`heartbeatMs` is derived from `leaseMs`). */
const LEASE_DEFAULTS = Object.freeze({
  leaseMs: 10_000,
  completedTtlMs: 86_400_000,
  failedTtlMs: 3_600_000,
  maxRunMs: 600_000,
  maxRuns: 3,
  storeTimeoutMs: 5_000,
});

/**
 * The lease, the heartbeat derived from it, the run limit and the store deadline become
 * timers, so each is bounded by 2³¹−1 ms: a `leaseMs` of 9e9 would derive a `heartbeatMs`
 * that `setInterval` fires every millisecond. TTLs are store expiries, not timers.
 */
export function normalizeLeaseOptions(options: LeaseOptions = {}): ResolvedLeaseOptions {
  const leaseMs = timerOption(options.leaseMs ?? LEASE_DEFAULTS.leaseMs, 'leaseMs', 2);
  const heartbeatMs = timerOption(options.heartbeatMs ?? Math.max(1, Math.floor(leaseMs / 3)), 'heartbeatMs', 1);
  if (heartbeatMs >= leaseMs) throw new TypeError('answer-once: `heartbeatMs` must be shorter than `leaseMs`.');
  return {
    leaseMs,
    heartbeatMs,
    completedTtlMs: numberOption(options.completedTtlMs ?? LEASE_DEFAULTS.completedTtlMs, 'completedTtlMs', { min: 1 }),
    failedTtlMs: numberOption(options.failedTtlMs ?? LEASE_DEFAULTS.failedTtlMs, 'failedTtlMs', { min: 1 }),
    maxRunMs: timerOption(options.maxRunMs ?? LEASE_DEFAULTS.maxRunMs, 'maxRunMs', 1),
    maxRuns: numberOption(options.maxRuns ?? LEASE_DEFAULTS.maxRuns, 'maxRuns', { min: 1 }),
    storeTimeoutMs: timerOption(options.storeTimeoutMs ?? LEASE_DEFAULTS.storeTimeoutMs, 'storeTimeoutMs', 1),
  };
}
