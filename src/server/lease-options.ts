/** Lease and retention options shared by `runOnce` and `createIdempotencyHandler`. */
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
}

export interface ResolvedLeaseOptions {
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly completedTtlMs: number;
  readonly failedTtlMs: number;
}

/** Throws a TypeError naming `name` unless `value` is a finite number ≥ `min`. */
export function assertNumber(name: string, value: unknown, min = 0): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
    throw new TypeError(`answer-once: \`${name}\` must be a finite number ≥ ${min}.`);
  }
}

export function normalizeLeaseOptions(options: LeaseOptions = {}): ResolvedLeaseOptions {
  const { leaseMs = 10_000, completedTtlMs = 86_400_000, failedTtlMs = 3_600_000 } = options;
  assertNumber('leaseMs', leaseMs, 1);
  const heartbeatMs = options.heartbeatMs ?? Math.max(1, Math.floor(leaseMs / 3));
  assertNumber('heartbeatMs', heartbeatMs, 1);
  if (heartbeatMs >= leaseMs) throw new TypeError('answer-once: `heartbeatMs` must be shorter than `leaseMs`.');
  assertNumber('completedTtlMs', completedTtlMs, 1);
  assertNumber('failedTtlMs', failedTtlMs, 1);
  return { leaseMs, heartbeatMs, completedTtlMs, failedTtlMs };
}
