import { createHash, randomUUID } from 'node:crypto';
import type * as Store from '../server/store/contract.js';
import { toLocalDeadline } from '../server/store/deadline.js';
import { Doorbell } from '../server/store/doorbell.js';
import { isNewToReader, LOG_LINGER_MS, stopOffset } from '../server/store/stream-store.js';
import { checkBatch, checkMs, checkPosition, checkText } from './arguments.js';
import { PostgresStoreClosedError, PostgresStoreReplyError, toStoreError } from './errors.js';
import { type NormalizedPostgresStoreOptions, normalizePostgresStoreOptions, type PostgresStoreOptions } from './options.js';
import { decodeLog, decodeRecord, integer, onlyRow } from './record.js';
import { type Statements, statementsOf } from './statements.js';
import { Wakeups } from './wakeups.js';

/** What a store's writes NOTIFY for one key: `r` a record change, `l` an append, `s` a stop (with its `r`). */
function payloadsOf(key: string): { record: string; log: string; stop: string } {
  const hash = createHash('md5').update(key).digest('hex');
  return { record: `${hash}:r`, log: `${hash}:l`, stop: `${hash}:s` };
}

/** The payloads whose last NOTIFY the wake-ups remember: the stops. */
const isStopPayload = (payload: string): boolean => payload.endsWith(':s');

/** Where the holder's lease lets a waiter sleep to, at the latest. */
const leaseEnd = (record: Store.IdempotencyRecord | null): number =>
  record?.state === 'processing' ? record.leaseExpiresAt + 1 : Number.POSITIVE_INFINITY;

/** PostgreSQL's SQLSTATE for a table that does not exist. */
const UNDEFINED_TABLE = '42P01';

/** A claim refused by a row committed after the statement's snapshot is run again; this many times at most. */
const ACQUIRE_ATTEMPTS = 3;

/**
 * The `answer-once/server` store on PostgreSQL, for many server instances sharing one
 * database — records and answer logs, so answers stream through it.
 *
 * - every operation ONE statement, so one round trip (`sql/`): the claim is an
 *   `INSERT … ON CONFLICT DO UPDATE … WHERE`, every fenced write an `UPDATE … WHERE token`;
 * - fencing tokens checked inside the statements; a stale takeover is atomic, with a fresh token;
 * - every time from the database's clock (`clock_timestamp()`); `leaseExpiresAt` is
 *   reported in this process's clock, so instance clock skew changes nothing;
 * - an intent is one row of `table` (its record and its log's extent) and its log's
 *   chunks in `<table>_log`; bytes go and come as `bytea`, so any bytes stream;
 * - `wait`, `read` and `watchStop` are woken by `NOTIFY` from the writes, on one
 *   listening connection of the store's own (never one of the pool's: a pool of one
 *   connection serves the store), open while anyone waits, and by a timer at the lease
 *   deadline; with `notifications: false` (or while that connection is down) they poll;
 * - the step journal is rows of `<table>_steps` keyed by the digest of the key
 *   (`sql/start-step.ts`), swept with their record;
 * - dead rows are removed by a bounded sweep (`sweepIntervalMs`, `sweep()`), never a
 *   scan per request.
 *
 * @example
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL }).on('error', log);
 * const store = new PostgresStore({ pool });
 */
export class PostgresStore implements Store.StreamStore, Store.StepStore {
  readonly #options: NormalizedPostgresStoreOptions;
  readonly #sql: Statements;
  readonly #wakeups: Wakeups;
  #ready: Promise<void> | undefined;
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: PostgresStoreOptions) {
    this.#options = normalizePostgresStoreOptions(options);
    this.#sql = statementsOf(this.#options.table);
    this.#wakeups = new Wakeups(this.#options.pool, this.#sql.tables.channel, this.#options.notifications, isStopPayload);
  }

  async acquire(key: string, fingerprint: string, leaseMs: number): Promise<Store.AcquireResult> {
    // Random, so never issued before for this key, even after the record expired.
    const token = randomUUID();
    const values = [
      checkText('key', key, true),
      checkText('fingerprint', fingerprint),
      checkMs('leaseMs', leaseMs, 1),
      this.#options.processingGraceMs,
      token,
      payloadsOf(key).record,
    ];
    for (let attempt = 1; ; attempt += 1) {
      const rows = await this.#query('acquire', this.#sql.acquire, values);
      const receivedAt = Date.now();
      const [row] = rows;
      if (!row) {
        if (attempt < ACQUIRE_ATTEMPTS) continue;
        // Past the retries only when the row of the key's digest holds another key (a digest collision): never served.
        throw new PostgresStoreReplyError(
          'answer-once/postgres: acquire found neither a claim nor a record (the row of the key’s digest holds another key)',
        );
      }
      if (row.claimed !== true) {
        const record = decodeRecord(row, receivedAt);
        if (!record) throw new PostgresStoreReplyError('answer-once/postgres: acquire answered without a record');
        return { acquired: false, record };
      }
      return {
        acquired: true,
        token,
        leaseExpiresAt: toLocalDeadline(
          integer(row.lease_expires_at, 'lease_expires_at'),
          integer(row.now, 'now'),
          receivedAt,
        ),
        takeover: row.claimed_over === 'processing',
        retry: row.claimed_over === 'failed',
        generation: integer(row.generation, 'generation'),
        runs: integer(row.runs, 'runs'),
      };
    }
  }

  async renew(key: string, token: string, leaseMs: number): Promise<Store.WriteResult> {
    const values = [
      checkText('key', key, true),
      checkText('token', token),
      checkMs('leaseMs', leaseMs, 1),
      this.#options.processingGraceMs,
    ];
    return writeResult(await this.#query('renew', this.#sql.renew, values));
  }

  async complete(key: string, token: string, result: string, ttlMs: number): Promise<Store.WriteResult> {
    return this.#settle(key, token, { state: 'completed', payload: result }, ttlMs);
  }

  async fail(key: string, token: string, error: string, ttlMs: number): Promise<Store.WriteResult> {
    return this.#settle(key, token, { state: 'failed', payload: error }, ttlMs);
  }

  async get(key: string): Promise<Store.IdempotencyRecord | null> {
    const rows = await this.#query('get', this.#sql.get, [checkText('key', key, true)]);
    return decodeRecord(onlyRow(rows), Date.now());
  }

  async markAvoided(key: string): Promise<Store.CompletedRecord | null> {
    const rows = await this.#query('markAvoided', this.#sql.markAvoided, [checkText('key', key, true)]);
    const record = decodeRecord(onlyRow(rows), Date.now());
    return record?.state === 'completed' ? record : null;
  }

  async wait(key: string, timeoutMs: number, signal?: AbortSignal): Promise<Store.IdempotencyRecord | null> {
    checkMs('timeoutMs', timeoutMs, 0);
    const deadline = Date.now() + timeoutMs;
    if (timeoutMs === 0 || signal?.aborted) return this.get(key);
    return this.#sleepOn([payloadsOf(key).record], deadline, signal, async () => {
      const record = await this.get(key);
      const done = record?.state !== 'processing' || record.leaseExpiresAt <= Date.now();
      return { done, value: record, until: leaseEnd(record) };
    });
  }

  async append(key: string, token: string, batch: Store.LogAppend): Promise<Store.LogAppendResult> {
    const { offset, data, head, retainBytes, leaseMs, continues } = checkBatch(batch);
    const values = [
      checkText('key', key, true),
      checkText('token', token),
      offset,
      Buffer.from(data.buffer, data.byteOffset, data.byteLength),
      head ?? null,
      retainBytes ?? null,
      leaseMs === undefined ? null : checkMs('leaseMs', leaseMs, 1),
      this.#options.processingGraceMs,
      payloadsOf(key).log,
      continues ?? null,
    ];
    const row = onlyRow(await this.#query('append', this.#sql.append, values));
    switch (row.outcome) {
      case 'ok':
        return { ok: true, length: integer(row.length, 'length'), stopRequested: row.stop_requested === true };
      case null:
        return { ok: false, reason: 'gone' };
      case 'fenced':
      case 'offset':
        return { ok: false, reason: row.outcome };
      case 'head':
        throw new TypeError('answer-once/postgres: the first append of a generation needs its `head`.');
      default:
        throw new PostgresStoreReplyError(`answer-once/postgres: append answered "${String(row.outcome)}"`);
    }
  }

  async read(key: string, from: Store.LogPosition | null, options: Store.LogReadOptions = {}): Promise<Store.LogSnapshot> {
    const { waitMs = 0, signal } = options;
    checkMs('waitMs', waitMs, 0);
    checkPosition('from', from);
    const deadline = Date.now() + waitMs;
    if (waitMs === 0 || signal?.aborted) return this.#snapshot(key, from);
    const { record, log } = payloadsOf(key);
    return this.#sleepOn([record, log], deadline, signal, async () => {
      const snapshot = await this.#snapshot(key, from);
      return { done: isNewToReader(snapshot, from, Date.now()), value: snapshot, until: leaseEnd(snapshot.record) };
    });
  }

  async stop(key: string, at?: Store.LogPosition): Promise<Store.StopOutcome> {
    const offset = stopOffset(at);
    const { record, stop } = payloadsOf(key);
    const values = [checkText('key', key, true), at?.generation ?? null, offset ?? null, record, stop];
    const answer = onlyRow(await this.#query('stop', this.#sql.stop, values)).outcome;
    if (answer === 'stopping' || answer === 'settled' || answer === 'unknown') return answer;
    throw new PostgresStoreReplyError(`answer-once/postgres: stop answered "${String(answer)}"`);
  }

  async watchStop(
    ...[key, token, timeoutMs, signal, claimSentAt]: Parameters<Store.StreamStore['watchStop']>
  ): Promise<boolean> {
    checkMs('timeoutMs', timeoutMs, 0);
    const values = [checkText('key', key, true), checkText('token', token)];
    const look = async (): Promise<number> =>
      integer(onlyRow(await this.#query('watchStop', this.#sql.watchStop, values)).held, 'held');
    const deadline = Date.now() + timeoutMs;
    if (timeoutMs === 0 || signal?.aborted) return (await look()) === 2;
    const { record, stop } = payloadsOf(key);
    // Listened to since before the claim was sent, with no stop heard since: none can be
    // pending (a claim's record starts without one), so a look would find nothing. As on
    // Redis, a takeover elsewhere then ends the watch through the holder's fenced writes.
    const noStopSince = (): boolean => claimSentAt !== undefined && this.#wakeups.heardNoneSince(stop, claimSentAt);
    // The record's payload and its stop's: stop, settle and claims notify there, appends do not.
    return this.#sleepOn(
      [record, stop],
      deadline,
      signal,
      async () => {
        const held = noStopSince() ? 1 : await look();
        return { done: held !== 1, value: held === 2, until: Number.POSITIVE_INFINITY };
      },
      false,
    );
  }

  /**
   * One bounded pass of the sweep: removes up to `sweepLimit` dead records (with their
   * logs) and up to `sweepLimit` lapsed logs, and says how many. Runs on its own every
   * `sweepIntervalMs`; call it from a scheduled job where timers do not live long.
   */
  async sweep(): Promise<{ records: number; logs: number }> {
    const row = onlyRow(await this.#query('sweep', this.#sql.sweep, [this.#options.sweepLimit], false));
    return { records: integer(row.records, 'records'), logs: integer(row.logs, 'logs') };
  }

  async startStep(key: string, token: string, step: string, options: Store.StepStartOptions = {}): Promise<Store.StepStart> {
    const values = [
      checkText('key', key, true),
      checkText('token', token),
      checkText('step', step, true),
      options.restart === true,
    ];
    const row = onlyRow(await this.#query('startStep', this.#sql.startStep, values));
    switch (row.state) {
      case 'finished':
        return { state: 'finished', outcome: String(row.outcome) };
      case 'started':
      case 'unfinished':
      case 'fenced':
      case 'gone':
        return { state: row.state };
      default:
        throw new PostgresStoreReplyError(`answer-once/postgres: startStep answered "${String(row.state)}"`);
    }
  }

  async finishStep(key: string, token: string, step: string, outcome: string): Promise<Store.WriteResult> {
    const values = [
      checkText('key', key, true),
      checkText('token', token),
      checkText('step', step, true),
      checkText('outcome', outcome),
    ];
    return writeResult(await this.#query('finishStep', this.#sql.finishStep, values));
  }

  /**
   * Stops the sweep timer and ends the listening connection; pending waits and reads
   * return early with what they last saw. The pool stays open (it is yours).
   */
  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    this.#wakeups.close();
  }

  /**
   * Waits until `look` says done, the deadline passes or `signal` aborts, and answers what
   * `look` last saw. Bounded: each turn sleeps until a NOTIFY on `payloads`, the time
   * `look` names (a lease deadline), the deadline, the abort — or, when no NOTIFY can
   * arrive, one poll interval. Listening is free once the store's listening connection is
   * up; until then the first look goes first, so an answer already there never waits for
   * that connection, and a look after listening catches a write that landed in between.
   */
  async #sleepOn<T>(
    payloads: readonly string[],
    deadline: number,
    signal: AbortSignal | undefined,
    look: () => Promise<{ done: boolean; value: T; until: number }>,
    timeoutValue?: T,
  ): Promise<T> {
    const doorbell = new Doorbell();
    let stop: (() => void) | undefined;
    try {
      if (!this.#wakeups.costly) stop = await this.#wakeups.listen(payloads, doorbell.ring);
      for (;;) {
        const { done, value, until } = await look();
        const now = Date.now();
        if (done) return value;
        if (now >= deadline || signal?.aborted || this.#wakeups.closed) return timeoutValue ?? value;
        if (!stop) {
          stop = await this.#wakeups.listen(payloads, doorbell.ring);
          continue;
        }
        const poll = this.#wakeups.live ? Number.POSITIVE_INFINITY : now + this.#options.pollIntervalMs;
        await doorbell.wait(Math.min(deadline, until, poll) - now, signal);
        if (signal?.aborted || this.#wakeups.closed) return timeoutValue ?? value;
      }
    } finally {
      stop?.();
    }
  }

  async #snapshot(key: string, from: Store.LogPosition | null): Promise<Store.LogSnapshot> {
    const values = [checkText('key', key, true), from?.generation ?? null, from?.offset ?? 0];
    const row = onlyRow(await this.#query('read', this.#sql.readLog, values));
    const record = decodeRecord(row, Date.now());
    return { record, log: record ? decodeLog(row) : null };
  }

  async #settle(key: string, token: string, settlement: Store.Settlement, ttlMs: number): Promise<Store.WriteResult> {
    const { state, payload } = settlement;
    const values = [
      checkText('key', key, true),
      checkText('token', token),
      state,
      checkText(state === 'completed' ? 'result' : 'error', payload),
      checkMs('ttlMs', ttlMs, 1),
      LOG_LINGER_MS,
      payloadsOf(key).record,
    ];
    return writeResult(await this.#query(state === 'completed' ? 'complete' : 'fail', this.#sql.settle, values));
  }

  /** Runs one statement on the pool, after the tables exist; every failure becomes a store error. */
  async #query(
    operation: string,
    text: string,
    values: readonly unknown[],
    startSweeper = true,
  ): Promise<readonly Readonly<Record<string, unknown>>[]> {
    if (this.#wakeups.closed) throw new PostgresStoreClosedError('answer-once/postgres: the store is closed');
    try {
      await this.#tables();
      if (startSweeper) this.#startSweeper();
      return (await this.#options.pool.query(text, [...values])).rows;
    } catch (error) {
      // The tables went away after this store made them (a restored or crashed database, a
      // dropped schema): made again once, and the statement run again.
      if (!this.#options.createTables || (error as { code?: unknown } | null)?.code !== UNDEFINED_TABLE) {
        throw toStoreError(error, operation);
      }
    }
    try {
      this.#ready = undefined;
      await this.#tables();
      return (await this.#options.pool.query(text, [...values])).rows;
    } catch (error) {
      throw toStoreError(error, operation);
    }
  }

  /** Creates the tables once (unless `createTables: false`); a failure is retried by the next call. */
  #tables(): Promise<void> {
    if (!this.#options.createTables) return Promise.resolve();
    this.#ready ??= this.#options.pool.query(this.#sql.createTables).then(
      () => {},
      (error: unknown) => {
        this.#ready = undefined;
        throw error;
      },
    );
    return this.#ready;
  }

  /** Starts the sweep timer on first use (a store never used holds no timer); it never keeps the process alive. */
  #startSweeper(): void {
    if (this.#sweeper || this.#options.sweepIntervalMs === 0) return;
    this.#sweeper = setInterval(() => {
      this.sweep().catch(() => {}); // the next tick tries again; a store call fails on its own
    }, this.#options.sweepIntervalMs);
    this.#sweeper.unref?.();
  }
}

/** A fenced statement's outcome column. */
function writeResult(rows: readonly Readonly<Record<string, unknown>>[]): Store.WriteResult {
  const { outcome } = onlyRow(rows);
  if (outcome === 'written' || outcome === 'fenced' || outcome === 'gone') return outcome;
  throw new PostgresStoreReplyError(`answer-once/postgres: a write answered "${String(outcome)}"`);
}
