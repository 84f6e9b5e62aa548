import { concat } from '../core/bytes.js';
import { checkMs, checkText } from '../redis/arguments.js';
import { RedisStoreClosedError, RedisStoreReplyError } from '../redis/errors.js';
import { logKeyOf } from '../redis/log-key.js';
import { decodeAppend, decodeLogPage } from '../redis/log-reply.js';
import * as operations from '../redis/operations.js';
import { array, decodeRecord, integer } from '../redis/reply.js';
import { ACQUIRE } from '../redis/scripts/acquire.js';
import { APPEND } from '../redis/scripts/append.js';
import type { RedisScript } from '../redis/scripts/define.js';
import { FINISH_STEP } from '../redis/scripts/finish-step.js';
import { MARK_AVOIDED } from '../redis/scripts/mark-avoided.js';
import { READ } from '../redis/scripts/read.js';
import { READ_FIELD } from '../redis/scripts/read-field.js';
import { READ_LOG } from '../redis/scripts/read-log.js';
import { RENEW } from '../redis/scripts/renew.js';
import { SETTLE } from '../redis/scripts/settle.js';
import { STAGE } from '../redis/scripts/stage.js';
import { START_STEP } from '../redis/scripts/start-step.js';
import { STOP } from '../redis/scripts/stop.js';
import { WATCH_STOP } from '../redis/scripts/watch-stop.js';
import { SharedReads } from '../redis/shared-reads.js';
import type * as Store from '../server/store/contract.js';
import { isNewToReader } from '../server/store/stream-store.js';
import { type NormalizedUpstashStoreOptions, normalizeUpstashStoreOptions, type UpstashStoreOptions } from './options.js';
import { PollBackoff } from './poll.js';
import { RecentLooks } from './recent-looks.js';
import { RECORD_CAP, RECORD_CHANGING, readSettled, wholeRecord } from './record-pages.js';
import { MAX_REQUEST_BYTES, PAGE_COST, partsOf, requestOverhead } from './request-size.js';
import { runRestScript } from './run-script.js';
import { bytesToText, restScript, textArgument } from './wire.js';

const encoder = new TextEncoder();

/**
 * The `answer-once/server` store over Upstash's REST API (`@upstash/redis`), for runtimes
 * that cannot open a TCP socket: Vercel Edge Functions, Cloudflare Workers, Deno Deploy.
 *
 * - the same Lua scripts as `RedisStore` (`src/redis/scripts/`: one per operation, the
 *   same atomic claim, fencing tokens, leases on Redis's clock, the step journal in the
 *   record's hash), each ONE REST request: EVALSHA, and one EVAL more only when Redis's
 *   script cache lacks it; the records are the same, so the two stores can share a database;
 * - HTTP has no blocking command and no pub/sub: `wait`, `read` and `watchStop` poll,
 *   `pollIntervalMs` first, doubling up to `maxPollIntervalMs`, never past the lease's end or
 *   the caller's deadline; the readers of one intent on one instance share each look, and
 *   a reader asking on from where a look just left it waits out the interval first;
 *   a holder's stop watch takes its own appends' replies as looks (they carry the stop);
 * - appends are the handler's, coalesced per flush window: a streamed answer costs one
 *   request per window, never one per event;
 * - no request or reply is larger than 1 MB (`request-size.ts`): an append past it goes
 *   as consecutive appends, a settle past it as staged parts (`scripts/stage.ts`, fenced
 *   like the settle) and a settle that joins them to its own part in one step; a log read
 *   goes in pages, and a settled record's large answer too (`scripts/read-field.ts`).
 *
 * @example
 * import { Redis } from '@upstash/redis';
 * const store = new UpstashStore({ redis: Redis.fromEnv() });
 */
export class UpstashStore implements Store.StreamStore, Store.StepStore {
  readonly #options: NormalizedUpstashStoreOptions;
  readonly #reads = new SharedReads();
  readonly #looks = new RecentLooks();
  /** The pauses of the store's waiters, each ended by `close()`. */
  readonly #wakers = new Set<() => void>();
  #closed = false;
  /** When this store last appended under a key's holder: that append's reply was a look at the stop. */
  readonly #appended = new Map<string, number>();

  constructor(options: UpstashStoreOptions) {
    this.#options = normalizeUpstashStoreOptions(options);
  }

  async acquire(key: string, fingerprint: string, leaseMs: number): Promise<Store.AcquireResult> {
    return readSettled(async () => {
      // Random, so never issued before for this key, even after the record expired.
      const token = crypto.randomUUID();
      const args = [
        ...operations.acquireArguments(fingerprint, leaseMs, this.#options.processingGraceMs, token),
        RECORD_CAP,
      ];
      const reply = await this.#run(ACQUIRE, key, args);
      const record = integer(array(reply, 1)[0]) === 1 ? reply : await this.#whole(key, reply);
      return record === undefined ? undefined : operations.decodeAcquire(record, token, Date.now());
    });
  }

  async renew(key: string, token: string, leaseMs: number): Promise<Store.WriteResult> {
    return operations.writeResult(
      await this.#run(RENEW, key, operations.renewArguments(token, leaseMs, this.#options.processingGraceMs)),
    );
  }

  async complete(key: string, token: string, result: string, ttlMs: number): Promise<Store.WriteResult> {
    return this.#settle(key, token, { state: 'completed', payload: result }, ttlMs);
  }

  async fail(key: string, token: string, error: string, ttlMs: number): Promise<Store.WriteResult> {
    return this.#settle(key, token, { state: 'failed', payload: error }, ttlMs);
  }

  async get(key: string): Promise<Store.IdempotencyRecord | null> {
    return readSettled(async () => {
      const record = await this.#whole(key, await this.#run(READ, key, [RECORD_CAP]));
      return record && decodeRecord(record, Date.now());
    });
  }

  async markAvoided(key: string): Promise<Store.CompletedRecord | null> {
    // A record that changed while its answer was read expired: the one marked is gone.
    const whole = await this.#whole(key, await this.#run(MARK_AVOIDED, key, [RECORD_CAP]));
    const record = whole && decodeRecord(whole, Date.now());
    return record?.state === 'completed' ? record : null;
  }

  async wait(key: string, timeoutMs: number, signal?: AbortSignal): Promise<Store.IdempotencyRecord | null> {
    checkMs('timeoutMs', timeoutMs, 0);
    const deadline = Date.now() + timeoutMs;
    const backoff = this.#backoff();
    // Bounded: each turn sleeps one poll interval, never past the lease, the timeout or the abort.
    for (;;) {
      const record = await this.get(key);
      const now = Date.now();
      if (record?.state !== 'processing' || record.leaseExpiresAt <= now) return record;
      if (now >= deadline || this.#over(signal)) return record;
      await backoff.sleep(Math.min(deadline, record.leaseExpiresAt + 1), signal);
    }
  }

  async append(key: string, token: string, batch: Store.LogAppend): Promise<Store.LogAppendResult> {
    const args = operations.appendArguments(token, batch, this.#options.processingGraceMs);
    const parts = partsOf(batch.data, this.#budget(APPEND, key, args, 2));
    const sent = Date.now();
    let result: Store.LogAppendResult = { ok: true, length: batch.offset, stopRequested: false };
    // Bounded: one request per part. A part refused ends it: the run lost the intent.
    for (const [index, data] of parts.entries()) {
      const part = index === 0 ? { ...batch, data } : { ...batch, offset: result.length, data, head: undefined };
      const stopped = result.stopRequested;
      result = decodeAppend(
        await this.#run(APPEND, key, operations.appendArguments(token, part, this.#options.processingGraceMs)),
      );
      if (!result.ok) break;
      if (stopped) result = { ...result, stopRequested: true };
    }
    // A refused append means the run lost the intent: its watch ends with it.
    if (result.ok) this.#appended.set(`${key}\n${token}`, sent);
    else this.#appended.delete(`${key}\n${token}`);
    return result;
  }

  async read(key: string, from: Store.LogPosition | null, options: Store.LogReadOptions = {}): Promise<Store.LogSnapshot> {
    const { waitMs = 0, signal } = options;
    checkMs('waitMs', waitMs, 0);
    operations.readLogArguments(from);
    const deadline = Date.now() + waitMs;
    const backoff = this.#backoff();
    const looked = from === null || waitMs === 0 ? undefined : this.#looks.take(key, from.generation, from.offset);
    if (looked !== undefined) await backoff.sleep(Math.min(deadline, looked + this.#options.pollIntervalMs), signal);
    // Bounded: each turn sleeps one poll interval, never past the lease, the timeout or the abort.
    for (;;) {
      const snapshot = await this.#snapshot(key, from);
      const now = Date.now();
      if (isNewToReader(snapshot, from, now) || now >= deadline || this.#over(signal)) return snapshot;
      const { record } = snapshot;
      const lease = record?.state === 'processing' ? record.leaseExpiresAt + 1 : deadline;
      await backoff.sleep(Math.min(deadline, lease), signal);
    }
  }

  async stop(key: string, at?: Store.LogPosition): Promise<Store.StopOutcome> {
    return operations.decodeStop(await this.#run(STOP, key, operations.stopArguments(at, this.#options.prefix)));
  }

  async watchStop(key: string, token: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    checkMs('timeoutMs', timeoutMs, 0);
    checkText('token', token);
    const deadline = Date.now() + timeoutMs;
    const backoff = this.#backoff();
    const appended = `${key}\n${token}`;
    let looked = 0;
    // Bounded: each turn sleeps one poll interval, never past the timeout or the abort.
    for (let first = true; ; first = false) {
      // An append made since the last look read the stop flag too (its reply carries it): it was a look.
      const appendedAt = this.#appended.get(appended) ?? 0;
      if (first || appendedAt <= looked) {
        looked = Date.now();
        const state = integer(await this.#run(WATCH_STOP, key, [token]));
        if (state !== 1) return state === 2;
      } else {
        looked = appendedAt;
      }
      if (Date.now() >= deadline || this.#over(signal)) return false;
      await backoff.sleep(deadline, signal);
      if (this.#over(signal)) return false;
    }
  }

  async startStep(key: string, token: string, step: string, options: Store.StepStartOptions = {}): Promise<Store.StepStart> {
    return operations.decodeStepStart(await this.#run(START_STEP, key, operations.startStepArguments(token, step, options)));
  }

  async finishStep(key: string, token: string, step: string, outcome: string): Promise<Store.WriteResult> {
    return operations.writeResult(await this.#run(FINISH_STEP, key, operations.finishStepArguments(token, step, outcome)));
  }

  /** Ends every pending wait, read and stop watch early, and refuses later calls. The client is the caller's. */
  close(): Promise<void> {
    this.#closed = true;
    for (const wake of [...this.#wakers]) wake();
    return Promise.resolve();
  }

  #backoff(): PollBackoff {
    return new PollBackoff(this.#options.pollIntervalMs, this.#options.maxPollIntervalMs, this.#wakers);
  }

  /** The caller's abort, or the store's closing. */
  #over(signal: AbortSignal | undefined): boolean {
    return this.#closed || signal?.aborted === true;
  }

  /** The record and log of `key` from `from`, in one request shared with every reader asking the same now. */
  #snapshot(key: string, from: Store.LogPosition | null): Promise<Store.LogSnapshot> {
    const args = operations.readLogArguments(from, PAGE_COST);
    return this.#reads.read(`${key}\n${args.join('\n')}`, async () => {
      const sent = Date.now();
      const snapshot = await this.#pages(key, args);
      if (snapshot.log) this.#looks.saw(key, snapshot.log.generation, snapshot.log.length, sent);
      return snapshot;
    });
  }

  /**
   * The snapshot read in pages of at most {@link PAGE_COST}: the first page's record and
   * log, its bytes completed up to that log's length by reading on from where each page
   * ended (bytes a generation appended never change). Should the log be replaced or
   * trimmed past the next page meanwhile, the read starts over.
   */
  async #pages(key: string, args: string[]): Promise<Store.LogSnapshot> {
    // Bounded: each turn reads at least one byte more, or starts over (at most three times).
    for (let attempt = 1; ; attempt += 1) {
      const [record, ...rest] = array(await this.#run(READ_LOG, key, args), 1);
      const whole = await this.#whole(key, record);
      if (whole === undefined && attempt < 3) continue;
      if (whole === undefined) throw new RedisStoreReplyError(RECORD_CHANGING);
      const first = decodeLogPage([whole, ...rest], Date.now());
      const log = first.log;
      if (!log || log.offset + log.data.byteLength === log.length) return first;
      const chunks = [log.data];
      let at = log.offset + log.data.byteLength;
      while (at < log.length) {
        const next = operations.readLogArguments({ generation: log.generation, offset: at }, PAGE_COST);
        // The page's own record is the first page's, its answer perhaps left out: only its log counts.
        const [, ...bytes] = array(await this.#run(READ_LOG, key, next), 1);
        const page = decodeLogPage([whole, ...bytes], Date.now()).log;
        if (page?.generation !== log.generation || page.offset !== at || page.data.byteLength === 0) break;
        const wanted = page.data.subarray(0, log.length - at);
        chunks.push(wanted);
        at += wanted.byteLength;
      }
      if (at === log.length) return { record: first.record, log: { ...log, data: concat(chunks) } };
      if (attempt === 3) throw new RedisStoreReplyError('answer-once/upstash: the log kept changing while it was read');
    }
  }

  /** `reply`, a record as a capped script sent it, with the answer it left out read in pages (`record-pages.ts`). */
  #whole(key: string, reply: unknown): Promise<unknown[] | undefined> {
    return wholeRecord(reply, (args) => this.#run(READ_FIELD, key, args));
  }

  #run(script: RedisScript, key: string, args: (string | Uint8Array)[]): Promise<unknown> {
    if (this.#closed) {
      return Promise.reject(new RedisStoreClosedError('answer-once/upstash: the store was closed'));
    }
    return runRestScript(this.#options.redis, script, this.#keys(key), wireOf(args), this.#options.commandTimeoutMs);
  }

  #keys(key: string): string[] {
    const record = this.#options.prefix + checkText('key', key, true);
    return [record, logKeyOf(record)];
  }

  /** What argument `at` of `script` may cost, the other `args` as given, for the request to stay under the bound. */
  #budget(script: RedisScript, key: string, args: (string | Uint8Array)[], at: number): number {
    const others = wireOf(args.map((arg, index) => (index === at ? '' : arg)));
    return MAX_REQUEST_BYTES - requestOverhead(restScript(script), this.#keys(key), others);
  }

  async #settle(key: string, token: string, settlement: Store.Settlement, ttlMs: number): Promise<Store.WriteResult> {
    const { state, payload } = settlement;
    const bytes = encoder.encode(operations.checkPayload(state, payload));
    this.#appended.delete(`${key}\n${token}`); // the holder's run ends here
    const whole = operations.settleArguments(token, state, bytes, ttlMs);
    if (partsOf(bytes, this.#budget(SETTLE, key, whole, 2)).length === 1) {
      return operations.writeResult(await this.#run(SETTLE, key, whole));
    }
    // Too large for one request: staged in parts, the last joined to them by the settle itself.
    const total = String(bytes.byteLength);
    const budget = Math.min(
      this.#budget(STAGE, key, [token, total, ''], 2),
      this.#budget(SETTLE, key, operations.settleArguments(token, state, bytes, ttlMs, bytes.byteLength), 2),
    );
    const parts = partsOf(bytes, budget);
    let staged = 0;
    // Bounded: one request per part.
    for (const part of parts.slice(0, -1)) {
      const written = operations.stagedWriteResult(await this.#run(STAGE, key, [token, String(staged), part]));
      if (written !== 'written') return written;
      staged += part.byteLength;
    }
    const last = parts.at(-1) ?? bytes;
    return operations.stagedWriteResult(
      await this.#run(SETTLE, key, operations.settleArguments(token, state, last, ttlMs, staged)),
    );
  }
}

/** Arguments as they cross REST (`wire.ts`): one character per byte. */
const wireOf = (args: (string | Uint8Array)[]): string[] =>
  args.map((arg) => (typeof arg === 'string' ? textArgument(arg) : bytesToText(arg)));
