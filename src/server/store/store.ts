/**
 * The store interface: where intents live between attempts. `MemoryStore` is the
 * reference implementation, `answer-once/redis` and `answer-once/postgres` the shared
 * ones; any object with these methods plugs into `runOnce` and
 * `createIdempotencyHandler`, and `answer-once/testing` says whether it keeps the contract.
 *
 * Every method is ONE atomic operation (one round trip for a networked store). The
 * store never runs user work and never interprets `result` or `error`: they are opaque
 * strings written by the layer above (runOnce's codec).
 *
 * Fencing: each successful `acquire` returns a fresh `token`, never issued before for
 * that key. `renew`, `complete` and `fail` change the record only while it is
 * PROCESSING under that very token; otherwise they change nothing and say why: `fenced`
 * (a record is there under another token or state: a zombie worker's late write) or
 * `gone` (no record at all: it expired, was evicted, or the store lost it).
 *
 * Errors: a store SHOULD reject with an error whose `code` is `store-unavailable` when a
 * retry may succeed (connection lost, timeout, loading, failover) and `store-failed`
 * when none will (wrong type, no permission, a script error); see PROTOCOL.md § 10.4.
 */

/** The record of an intent that a worker currently holds. */
export interface ProcessingRecord {
  readonly state: 'processing';
  /** SHA-256 (hex) of method, path and body, or whatever the caller fingerprints. */
  readonly fingerprint: string;
  /** The holder's fencing token. */
  readonly token: string;
  /** Epoch milliseconds (store clock) after which another worker may take over. */
  readonly leaseExpiresAt: number;
  /** Epoch milliseconds of the first acquire of this intent (kept across takeovers). */
  readonly createdAt: number;
  /**
   * The claims made on this intent since its record was created: 1 after the first
   * acquire, +1 on each claim after FAILED and on each takeover of a lapsed lease; kept by
   * renew, complete and fail. The layer above bounds it (`maxRuns`); the store only counts.
   */
  readonly runs: number;
  /**
   * This claim's generation (stream-store.ts): new and larger on every claim. Set by
   * every store that keeps answer logs; absent on a store that does not.
   */
  readonly generation?: number;
  /**
   * The earlier generation whose answer this one continues (stream-store.ts, PROTOCOL.md
   * § 14.12): set by the holder's first continuing append, kept by complete and fail; a
   * claim's new record starts without it. The log, the stored answer and every position
   * of the answer are that generation's. Absent: the answer is this generation's own.
   */
  readonly continues?: number;
  /** A stop was asked for this generation (stream-store.ts `stop`). Absent: not asked. */
  readonly stopRequested?: boolean;
  /**
   * Where the stop asked this generation's answer to end: the offset of the stopping
   * reader's last event (stream-store.ts `stop`). Absent: the stop named no position of
   * this generation (or none was asked).
   */
  readonly stopAt?: number;
}

/** The record of an intent whose work finished; `result` is replayed on every later call. */
export interface CompletedRecord {
  readonly state: 'completed';
  readonly fingerprint: string;
  readonly result: string;
  readonly createdAt: number;
  readonly completedAt: number;
  /** The claims made on this intent (see {@link ProcessingRecord.runs}). */
  readonly runs: number;
  /** The generation whose holder completed it (stores that keep answer logs). */
  readonly generation?: number;
  /** The earlier generation whose answer it continued ({@link ProcessingRecord.continues}). */
  readonly continues?: number;
  /** A model call its answer avoided was counted (`markAvoided`): later replays count none. */
  readonly avoided?: true;
}

/** The record of an intent whose last attempt failed; the same intent may run again. */
export interface FailedRecord {
  readonly state: 'failed';
  readonly fingerprint: string;
  readonly error: string;
  readonly createdAt: number;
  readonly failedAt: number;
  /** The claims made on this intent (see {@link ProcessingRecord.runs}). */
  readonly runs: number;
  /** The generation whose holder failed (stores that keep answer logs). */
  readonly generation?: number;
  /** The earlier generation whose answer it continued ({@link ProcessingRecord.continues}). */
  readonly continues?: number;
}

export type IdempotencyRecord = ProcessingRecord | CompletedRecord | FailedRecord;

export type IdempotencyState = IdempotencyRecord['state'];

/**
 * What `complete` and `fail` ask a store to write: the state the record settles in and its
 * `payload` (the answer or the error), as a store that settles both in one operation takes them.
 */
export interface Settlement {
  readonly state: Exclude<IdempotencyState, 'processing'>;
  readonly payload: string;
}

/**
 * What `acquire` found.
 * - `acquired: true`: the caller now holds the intent and must run the work, then
 *   `complete` or `fail` with `token`. `takeover` says a dead holder's lease had expired;
 *   `retry` says the previous attempt had FAILED. `runs` counts this claim with every
 *   one before it on the record ({@link ProcessingRecord.runs}).
 * - `acquired: false`: someone else holds it, it is answered, or the fingerprint differs;
 *   `record` is the current record, read in the same atomic step.
 */
export type AcquireResult =
  | {
      readonly acquired: true;
      readonly token: string;
      readonly leaseExpiresAt: number;
      readonly takeover: boolean;
      readonly retry: boolean;
      /** The claims made on this intent, this one included: 1 for the first. */
      readonly runs: number;
      /** The claim's generation (stores that keep answer logs, stream-store.ts). */
      readonly generation?: number;
    }
  | { readonly acquired: false; readonly record: IdempotencyRecord };

/**
 * How a fenced write (`renew`, `complete`, `fail`) went: `written`; `fenced` (the record
 * exists but `token` no longer holds it: a successor took over, or it is settled); `gone`
 * (there is no record: nobody holds the intent, so the worker may claim it again).
 */
export type WriteResult = 'written' | 'fenced' | 'gone';

export interface IdempotencyStore {
  /**
   * Atomically claims `key` for a new worker when there is no record, the record is
   * FAILED, or it is PROCESSING with an expired lease — and only when the stored
   * fingerprint (if any) equals `fingerprint`. A record with another fingerprint is
   * returned unchanged, whatever its state. A new PROCESSING record lives `leaseMs`.
   */
  acquire(key: string, fingerprint: string, leaseMs: number): Promise<AcquireResult>;

  /** Extends the lease to now + `leaseMs` if `token` still holds `key`. */
  renew(key: string, token: string, leaseMs: number): Promise<WriteResult>;

  /** PROCESSING → COMPLETED with `result`, kept `ttlMs`, if `token` still holds `key`. */
  complete(key: string, token: string, result: string, ttlMs: number): Promise<WriteResult>;

  /** PROCESSING → FAILED with `error`, kept `ttlMs`, if `token` still holds `key`. */
  fail(key: string, token: string, error: string, ttlMs: number): Promise<WriteResult>;

  /** The current record, or `null` when unknown or expired. */
  get(key: string): Promise<IdempotencyRecord | null>;

  /**
   * Resolves as soon as the record at `key` is no longer a live PROCESSING record
   * (completed, failed, gone, or its lease expired), or when `timeoutMs` passes or
   * `signal` aborts — whichever is first — with the record as it then is. Must not
   * busy-poll: wake on the write (an event, pub/sub) and on the lease deadline.
   */
  wait(key: string, timeoutMs: number, signal?: AbortSignal): Promise<IdempotencyRecord | null>;

  /**
   * Marks the COMPLETED record at `key` as counted ({@link CompletedRecord.avoided}): a
   * model call its answer avoided was reported (PROTOCOL.md § 7.6); `acquire` and `get`
   * return the mark with the record. Answers the marked record when this call set it, `null`
   * when the mark was set already or there is no COMPLETED record — so one intent is
   * counted at most once, however often its answer is sent again. The mark lives as long
   * as the record. Optional: without it, no avoided call is counted at all.
   */
  markAvoided?(key: string): Promise<CompletedRecord | null>;

  /** Releases timers and connections the store opened itself. */
  close?(): Promise<void>;
}
