/**
 * The answer log: what a store adds to {@link IdempotencyStore} so that answers stream
 * through while they are stored (PROTOCOL.md § 14). `MemoryStore` is the reference
 * implementation; `RedisStore` and `PostgresStore` the shared ones. A store without these
 * methods keeps buffered answers (§ 14.11): `isStreamStore` tells them apart.
 *
 * The model. Every intent's record (store.ts) carries a **generation**: each `acquire`
 * that claims the intent (first run, retry after FAILED, takeover of a dead lease)
 * gives it a new one, strictly greater than every generation the key had before —
 * `generation = max(storeNowMs, previousGeneration + 1)`, so it grows even across a
 * record that expired and was created again. Beside the record the store keeps at most
 * one **log**: the head and the bytes of ONE generation, appended in order by the
 * generation's holder under its fencing token.
 *
 *   log = { generation, head, length, start, chunks[] }
 *
 * - `head` is an opaque string written by the HTTP layer (the response's status and
 *   replayable headers, § 14.2); the store never interprets it, nor the bytes.
 * - `length` counts every byte appended to the generation; `start` is the offset of
 *   the first byte still kept (0 until `retainBytes` trimmed older chunks).
 * - The first append of a generation replaces whatever log the key had (an older
 *   generation's bytes are never mixed with a newer one's).
 *
 * Every method is ONE atomic step on the store (one round trip for a networked store,
 * e.g. one Lua script), like the record operations. Readers are woken by the writes
 * themselves (an event, pub/sub, `XREAD BLOCK`, `NOTIFY`) and by a timer at the lease
 * deadline — never by polling, unless the store cannot be notified where it runs and
 * says so (`PostgresStore` with `notifications: false` looks again at a stated interval).
 *
 * Lifetime: the log lives as long as its record while the record is PROCESSING (it
 * expires with it: a networked store extends the log's expiry wherever it extends the
 * record's — acquire, renew, an append with `leaseMs`); `complete` and `fail` keep it
 * readable for at least {@link LOG_LINGER_MS} more (readers that are behind finish from
 * it), and at most the record's new TTL. When the record disappears the log may
 * disappear with it. A takeover's new record starts without `stopRequested`; its
 * generation's first append replaces the log.
 *
 * Continued generations (PROTOCOL.md § 14.12). A new claim whose answer reproduces the
 * bytes an earlier generation logged may **continue** that log instead of replacing it:
 * its first append names the logged generation (`continues`) and the log's length, and
 * from then on the record carries `continues` — the record's **answer generation**
 * (`answerGeneration`) is the continued one, so its log, its stored answer and every
 * position a reader holds stay valid. Until the new claim appended, a reader of the logged
 * generation does not know yet whether it continues or replaces it (`isChoosing`): it
 * waits for that append (or the record settling) instead of restarting.
 */

import type { StopOutcome } from '../../core/stop-outcome.js';
import type { IdempotencyRecord, IdempotencyStore } from './store.js';

export type { StopOutcome };

/** How long a settled intent's log stays readable, at least (§ 14.8). */
export const LOG_LINGER_MS = 30_000;

/** A position in an answer: byte `offset` of generation `generation`'s body (§ 14.3). */
export interface LogPosition {
  readonly generation: number;
  readonly offset: number;
}

/** One append: the next bytes of the holder's generation. */
export interface LogAppend {
  /**
   * The generation's length before this append: the offset at which `data` starts. It
   * must equal the log's `length` (0 for the first append of a generation); otherwise
   * nothing changes and the append answers `{ ok: false, reason: 'offset' }` (a lost or
   * repeated batch never becomes a hole or a duplicate).
   */
  readonly offset: number;
  /** The bytes, possibly empty (a head-only first append). */
  readonly data: Uint8Array;
  /**
   * The generation's head. Required on the generation's first append (`offset` 0),
   * which opens the generation's log; ignored afterwards. A first append without it
   * rejects with a `TypeError` (a caller bug, nothing changes).
   */
  readonly head?: string;
  /**
   * Keep only the newest bytes: after appending, drop the oldest chunks (whole appends)
   * while more than `retainBytes` are kept and more than one chunk remains; `start`
   * moves to the first byte kept. Absent: keep everything.
   */
  readonly retainBytes?: number;
  /**
   * Continue the answer of this earlier generation instead of opening one of the holder's
   * own (§ 14.12): the append succeeds only when the kept log is of generation
   * `continues` (or the record already continues it and has no log: it is opened again,
   * as a first append) and `offset` equals its length; the record then keeps `continues`
   * until it expires or is claimed again, and every later append goes to that log.
   * Otherwise nothing changes and the append answers `offset`. Absent: the record's
   * answer generation (`answerGeneration`) is appended to, as ever.
   */
  readonly continues?: number;
  /**
   * Also extend the lease to now + `leaseMs` in the same step, as `renew` does: a
   * generation that keeps appending needs no separate heartbeat. Absent: the lease is
   * left alone.
   */
  readonly leaseMs?: number;
}

/**
 * How an append went.
 * - `ok: true`: stored; `length` is the generation's length after it; `stopRequested`
 *   says a stop (§ 14.7) was asked for this generation — the holder should stop.
 * - `fenced`: a record is there but `token` no longer holds it (taken over, settled):
 *   nothing changed. `gone`: no record at all. `offset`: `offset` ≠ the log's length.
 */
export type LogAppendResult =
  | { readonly ok: true; readonly length: number; readonly stopRequested: boolean }
  | { readonly ok: false; readonly reason: 'fenced' | 'gone' | 'offset' };

/** The kept part of a log, as `read` returns it. */
export interface LogSlice {
  /** The generation these bytes belong to (compare with `record.generation`). */
  readonly generation: number;
  /** The head written by the generation's first append. */
  readonly head: string;
  /** Bytes appended to this generation so far. */
  readonly length: number;
  /**
   * Where `data` starts: the requested offset when the read asked for this generation
   * and it is still kept; otherwise the first byte kept (`0` unless trimmed). A reader
   * whose requested offset is below `offset` lost bytes to `retainBytes`.
   */
  readonly offset: number;
  /** The bytes `[offset, length)`. */
  readonly data: Uint8Array;
}

/** One atomic look at an intent: its record and its log, as they were together. */
export interface LogSnapshot {
  readonly record: IdempotencyRecord | null;
  readonly log: LogSlice | null;
}

/** Options of {@link StreamStore.read}. */
export interface LogReadOptions {
  /**
   * When nothing is new relative to `from` (below), wait up to this long for a write
   * that makes something new, then answer the snapshot as it then is. `0` answers at once.
   * @default 0
   */
  readonly waitMs?: number;
  /** Stops the wait early; the snapshot is answered as it then is. */
  readonly signal?: AbortSignal;
}

/**
 * Whether `snapshot` holds something new to a reader at `from`: what ends a waiting
 * {@link StreamStore.read} (every store decides it here). No record; a record that is not
 * PROCESSING; a PROCESSING record whose lease has expired by `now`, or whose answer
 * generation (`answerGeneration`) is not `from.generation` — unless its claim is
 * still choosing whether to continue `from`'s log ({@link isChoosing}); a log of the
 * answer generation longer than `from.offset` (for `from` null: any log of it).
 */
export function isNewToReader(snapshot: LogSnapshot, from: LogPosition | null, now: number): boolean {
  const { record, log } = snapshot;
  if (record?.state !== 'processing' || record.leaseExpiresAt <= now) return true;
  const generation = answerGeneration(record);
  if (from !== null && generation !== from.generation) return !isChoosing(snapshot, from.generation);
  return log !== null && log.generation === generation && (from === null || log.length > from.offset);
}

/**
 * The generation whose answer a record carries: the one it continues (§ 14.12), else its
 * own. Its log, its stored answer and every position of its answer are this generation's.
 */
export function answerGeneration(record: IdempotencyRecord): number | undefined {
  return record.continues ?? record.generation;
}

/**
 * Whether a PROCESSING record's claim has not yet chosen between continuing `generation`'s
 * logged answer and replacing it (§ 14.12): a newer claim that has not appended, while
 * the kept log is still `generation`'s. A reader of `generation` waits for the choice.
 */
export function isChoosing({ record, log }: LogSnapshot, generation: number): boolean {
  return (
    record?.state === 'processing' &&
    record.continues === undefined &&
    record.generation !== undefined &&
    record.generation > generation &&
    log?.generation === generation
  );
}

/**
 * An {@link IdempotencyStore} that also keeps answer logs. On such a store `acquire`
 * MUST return `generation` with every claim, and every record MUST carry the
 * `generation` that wrote it (store.ts).
 */
export interface StreamStore extends IdempotencyStore {
  /**
   * Appends `batch` to the log of the generation `token` holds, if `token` holds `key`
   * (the record is PROCESSING under it; an expired lease nobody took over still holds,
   * § 5.4). The generation's first append (`offset` 0) opens its log with `batch.head`,
   * replacing the log of any older generation — unless it continues that log
   * (`batch.continues`, § 14.12). Wakes every `read` waiting on `key`.
   */
  append(key: string, token: string, batch: LogAppend): Promise<LogAppendResult>;

  /**
   * The record and the log of `key` in one atomic step. The slice holds the bytes of
   * generation `from.generation` from `from.offset` when that is the kept generation,
   * else every kept byte of the kept generation; `log` is `null` when the key has none.
   *
   * With `waitMs > 0`, when nothing is new relative to `from` it waits — woken by
   * `acquire`, `append`, `complete`, `fail`, `stop` on `key` and by a timer at the lease
   * deadline, never by polling — and answers the snapshot taken after the wake. "New" is
   * any of: no record; a record that is not PROCESSING; a PROCESSING record whose lease
   * has expired, or whose answer generation (`continues ?? generation`) ≠
   * `from.generation` — unless the record's claim has not appended yet while the log is
   * still `from.generation`'s (`isChoosing`: it may continue it); a log of the answer
   * generation with `length > from.offset` (for `from` null: any log of the answer
   * generation — its head is there). A stop request alone is not new (the holder hears
   * it through `watchStop`; readers see its outcome when the record settles).
   */
  read(key: string, from: LogPosition | null, options?: LogReadOptions): Promise<LogSnapshot>;

  /**
   * Asks the holder of `key` to stop (§ 14.8). A PROCESSING record gets
   * `stopRequested: true` (kept until it settles; a takeover's new record starts
   * without it) and every `read`/`watchStop` waiting on `key` is woken: `'stopping'`.
   * A COMPLETED or FAILED record is left alone: `'settled'`. No record: `'unknown'`.
   *
   * `at` is where the stopping reader was (the position of the last event it showed):
   * when `at.generation` is the record's answer generation (`continues ?? generation`)
   * and the record has no `stopAt` yet,
   * the record keeps `stopAt: at.offset` (the first stop that carries a position sets
   * it; later stops do not move it). The holder ends the stored answer there when it
   * has produced more. A position of another generation is ignored.
   */
  stop(key: string, at?: LogPosition): Promise<StopOutcome>;

  /**
   * Resolves `true` as soon as a stop is requested for the generation `token` holds
   * (at once when it already was); `false` when `timeoutMs` passes, `signal` aborts or
   * `token` no longer holds `key`. Woken by `stop` itself, never by polling, and not by
   * the holder's own appends (a networked store SHOULD give stop its own channel so a
   * busy generation pays no round trip for it).
   *
   * `claimSentAt` (`Date.now()` just before the `acquire` that returned `token` was sent)
   * lets a store that has listened for stops without a break since then, and heard none
   * for `key`, skip its first look: the claim's record started without a stop, and every
   * stop since was made after it. A store MAY ignore it and look.
   */
  watchStop(key: string, token: string, timeoutMs: number, signal?: AbortSignal, claimSentAt?: number): Promise<boolean>;
}

/**
 * The offset a stop's position asks for, checked once for every store: `undefined` for
 * no position; a `TypeError` naming `at` for one that is not a position (a positive
 * integer generation, a non-negative integer offset).
 */
export function stopOffset(at: LogPosition | undefined): number | undefined {
  if (at === undefined) return undefined;
  const valid =
    typeof at === 'object' &&
    at !== null &&
    Number.isSafeInteger(at.generation) &&
    at.generation > 0 &&
    Number.isSafeInteger(at.offset) &&
    at.offset >= 0;
  if (!valid) {
    throw new TypeError(
      `answer-once: stop()'s \`at\` must be { generation: a positive integer, offset: an integer ≥ 0 }, got ${JSON.stringify(at)}.`,
    );
  }
  return at.offset;
}

/** Whether `store` keeps answer logs (has every {@link StreamStore} method). */
export function isStreamStore(store: IdempotencyStore): store is StreamStore {
  const candidate = store as Partial<StreamStore>;
  return (
    typeof candidate.append === 'function' &&
    typeof candidate.read === 'function' &&
    typeof candidate.stop === 'function' &&
    typeof candidate.watchStop === 'function'
  );
}
