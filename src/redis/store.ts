import { randomUUID } from 'node:crypto';
import type * as Store from '../server/store/contract.js';
import { Doorbell } from '../server/store/doorbell.js';
import { isNewToReader } from '../server/store/stream-store.js';
import { checkMs, checkText } from './arguments.js';
import { SettleChannels } from './channels.js';
import type { RedisScriptRunner } from './client.js';
import { logKeyOf } from './log-key.js';
import { decodeAppend, decodeSnapshot } from './log-reply.js';
import {
  acquireArguments,
  appendArguments,
  decodeAcquire,
  decodeStepStart,
  decodeStop,
  finishStepArguments,
  readLogArguments,
  renewArguments,
  settleArguments,
  startStepArguments,
  stopArguments,
  writeResult,
} from './operations.js';
import { type NormalizedRedisStoreOptions, normalizeRedisStoreOptions, type RedisStoreOptions } from './options.js';
import { decodeRecord, integer } from './reply.js';
import { runScript } from './run-script.js';
import { ACQUIRE } from './scripts/acquire.js';
import { APPEND } from './scripts/append.js';
import type { RedisScript } from './scripts/define.js';
import { FINISH_STEP } from './scripts/finish-step.js';
import { MARK_AVOIDED } from './scripts/mark-avoided.js';
import { READ } from './scripts/read.js';
import { READ_LOG } from './scripts/read-log.js';
import { RENEW } from './scripts/renew.js';
import { SETTLE } from './scripts/settle.js';
import { START_STEP } from './scripts/start-step.js';
import { STOP, stopChannelOf } from './scripts/stop.js';
import { WATCH_STOP } from './scripts/watch-stop.js';
import { SharedReads } from './shared-reads.js';
import { StopWatchers } from './stop-watchers.js';

/** RESP blob strings as Buffers: node-redis's `RESP_TYPES.BLOB_STRING` is 36 (`$`). */
const BUFFERS = { 36: Buffer } as const;

/**
 * The `answer-once/server` store on Redis, for many server instances sharing one state.
 *
 * - every operation ONE round trip (EVALSHA of an atomic Lua script, `scripts/`; one
 *   EVAL more only when the server's script cache lost it);
 * - fencing tokens checked inside the scripts; stale takeover atomic, with a fresh token;
 * - leases measured by Redis's clock (`TIME`); `leaseExpiresAt` is reported in this
 *   process's clock, so instance clock skew changes nothing;
 * - an intent is its record (a hash at `prefix + key`) and its answer log (a Stream
 *   beside it, `log-key.ts`), on one Cluster slot through the key's hash tag; the log's
 *   bytes go and come as Buffers, so any bytes stream, not only UTF-8;
 * - `wait` and `read` are woken by sharded publishes from the writes, on one subscriber
 *   connection per store, and by a timer at the lease deadline — they never poll Redis;
 *   `watchStop` by the store's one stop channel on the same connection (a run's watch
 *   costs no subscription of its own) and by this store's own settles and claims;
 * - the step journal is fields of the record's hash (`scripts/start-step.ts`): it expires
 *   with the record and costs no key of its own.
 *
 * @example
 * const client = await createClient({ url, disableOfflineQueue: true }).on('error', log).connect();
 * const store = new RedisStore({ client });
 */
export class RedisStore implements Store.StreamStore, Store.StepStore {
  readonly #options: NormalizedRedisStoreOptions;
  readonly #channels: SettleChannels;
  readonly #stops: StopWatchers;
  readonly #reads = new SharedReads();
  #binary: RedisScriptRunner | undefined;

  constructor(options: RedisStoreOptions) {
    this.#options = normalizeRedisStoreOptions(options);
    const { client, commandTimeoutMs, prefix } = this.#options;
    this.#channels = new SettleChannels(client, commandTimeoutMs, () => this.#stops.reconnected());
    this.#stops = new StopWatchers(() => this.#channels.connection(), stopChannelOf(prefix), commandTimeoutMs);
  }

  async acquire(key: string, fingerprint: string, leaseMs: number): Promise<Store.AcquireResult> {
    // Random, so never issued before for this key, even after the record expired.
    const token = randomUUID();
    const args = acquireArguments(fingerprint, leaseMs, this.#options.processingGraceMs, token);
    const claim = decodeAcquire(await this.#run(ACQUIRE, key, args), token, Date.now());
    if (claim.acquired && claim.takeover) this.#stops.release(this.#key(key)); // a lapsed holder watching here holds no more
    return claim;
  }

  async renew(key: string, token: string, leaseMs: number): Promise<Store.WriteResult> {
    const args = renewArguments(token, leaseMs, this.#options.processingGraceMs);
    return writeResult(await this.#run(RENEW, key, args));
  }

  async complete(key: string, token: string, result: string, ttlMs: number): Promise<Store.WriteResult> {
    return this.#settle(key, token, { state: 'completed', payload: result }, ttlMs);
  }

  async fail(key: string, token: string, error: string, ttlMs: number): Promise<Store.WriteResult> {
    return this.#settle(key, token, { state: 'failed', payload: error }, ttlMs);
  }

  async get(key: string): Promise<Store.IdempotencyRecord | null> {
    const reply = await this.#run(READ, key, []);
    return decodeRecord(reply, Date.now());
  }

  async markAvoided(key: string): Promise<Store.CompletedRecord | null> {
    const record = decodeRecord(await this.#run(MARK_AVOIDED, key, []), Date.now());
    return record?.state === 'completed' ? record : null;
  }

  async wait(key: string, timeoutMs: number, signal?: AbortSignal): Promise<Store.IdempotencyRecord | null> {
    checkMs('timeoutMs', timeoutMs, 0);
    const deadline = Date.now() + timeoutMs;
    if (timeoutMs === 0 || signal?.aborted) return this.get(key);
    const doorbell = new Doorbell();
    const stop = await this.#channels.listen(this.#key(key), doorbell.ring);
    try {
      // Bounded: each turn waits for a publish, the lease deadline, the timeout or the abort.
      for (;;) {
        const record = await this.get(key);
        const now = Date.now();
        if (record?.state !== 'processing' || record.leaseExpiresAt <= now) return record;
        if (now >= deadline || signal?.aborted || this.#channels.closed) return record;
        await doorbell.wait(Math.min(deadline, record.leaseExpiresAt + 1) - now, signal);
      }
    } finally {
      stop();
    }
  }

  async append(key: string, token: string, batch: Store.LogAppend): Promise<Store.LogAppendResult> {
    const args = appendArguments(token, batch, this.#options.processingGraceMs).map(asRedisArgument);
    return decodeAppend(await this.#run(APPEND, key, args));
  }

  async read(key: string, from: Store.LogPosition | null, options: Store.LogReadOptions = {}): Promise<Store.LogSnapshot> {
    const { waitMs = 0, signal } = options;
    checkMs('waitMs', waitMs, 0);
    readLogArguments(from);
    const deadline = Date.now() + waitMs;
    const recordChannel = this.#key(key);
    const logChannel = logKeyOf(recordChannel);
    // A follower's channels are usually subscribed already: listen first, at no cost, so
    // the one read below already counts. Otherwise read first: a read that finds
    // something new (an attach, a replay) then costs no subscription at all.
    const hot = this.#channels.isSubscribed(recordChannel) && this.#channels.isSubscribed(logChannel);
    const doorbell = new Doorbell();
    const stops: (() => void)[] = [];
    try {
      if (hot && waitMs > 0 && !signal?.aborted) await this.#listen([recordChannel, logChannel], doorbell, stops);
      let snapshot = await this.#snapshot(key, from);
      if (waitMs === 0 || signal?.aborted) return snapshot;
      if (stops.length === 0) {
        if (isNewToReader(snapshot, from, Date.now())) return snapshot;
        await this.#listen([recordChannel, logChannel], doorbell, stops);
        snapshot = await this.#snapshot(key, from); // a write may have landed before the subscription
      }
      // Bounded: each turn waits for a publish, the lease deadline, the timeout or the abort.
      for (;;) {
        const now = Date.now();
        const { record } = snapshot;
        if (isNewToReader(snapshot, from, now) || now >= deadline || signal?.aborted || this.#channels.closed)
          return snapshot;
        const lease = record?.state === 'processing' ? record.leaseExpiresAt + 1 : deadline;
        await doorbell.wait(Math.min(deadline, lease) - now, signal);
        if (signal?.aborted || this.#channels.closed) return snapshot;
        snapshot = await this.#snapshot(key, from);
      }
    } finally {
      for (const stop of stops) stop();
    }
  }

  async stop(key: string, at?: Store.LogPosition): Promise<Store.StopOutcome> {
    return decodeStop(await this.#run(STOP, key, stopArguments(at, this.#options.prefix)));
  }

  async watchStop(
    key: string,
    token: string,
    timeoutMs: number,
    signal?: AbortSignal,
    claimSentAt?: number,
  ): Promise<boolean> {
    checkMs('timeoutMs', timeoutMs, 0);
    checkText('token', token);
    const deadline = Date.now() + timeoutMs;
    const look = async (): Promise<number> => integer(await this.#run(WATCH_STOP, key, [token]));
    if (timeoutMs === 0 || signal?.aborted) return (await look()) === 2;
    const doorbell = new Doorbell();
    let released = false;
    // The store's one stop channel: no subscription of its own (stop-watchers.ts).
    const watch = await this.#stops.watch(
      this.#key(key),
      token,
      (gone) => {
        released ||= gone;
        doorbell.ring();
      },
      claimSentAt,
    );
    // Heard since the claim, with no stop for it: nothing can be pending, no look.
    let looks = watch.look;
    try {
      // Bounded: each turn waits for a stop, a settle or claim made here, the timeout or the abort.
      for (;;) {
        if (looks) {
          const state = await look();
          if (state !== 1) return state === 2;
        }
        looks = true;
        const now = Date.now();
        if (now >= deadline || signal?.aborted || this.#channels.closed) return false;
        await doorbell.wait(deadline - now, signal);
        if (signal?.aborted || released) return false;
      }
    } finally {
      watch.stop();
    }
  }

  async startStep(key: string, token: string, step: string, options: Store.StepStartOptions = {}): Promise<Store.StepStart> {
    return decodeStepStart(await this.#run(START_STEP, key, startStepArguments(token, step, options)));
  }

  async finishStep(key: string, token: string, step: string, outcome: string): Promise<Store.WriteResult> {
    return writeResult(await this.#run(FINISH_STEP, key, finishStepArguments(token, step, outcome)));
  }

  /** Closes the subscriber connection the store opened; pending waits and reads return early. The client stays open. */
  async close(): Promise<void> {
    this.#stops.close();
    await this.#channels.close();
  }

  #key(key: string): string {
    return this.#options.prefix + checkText('key', key, true);
  }

  async #listen(channels: string[], doorbell: Doorbell, stops: (() => void)[]): Promise<void> {
    const ring = (): void => {
      this.#reads.changed();
      doorbell.ring();
    };
    for (const channel of channels) {
      const subscribing = !this.#channels.isSubscribed(channel);
      stops.push(await this.#channels.listen(channel, ring));
      // A read sent before the subscription was confirmed may miss a write it would hear of.
      if (subscribing) this.#reads.changed();
    }
  }

  /** The record and log of `key` from `from`, in one round trip shared with every reader asking the same now. */
  #snapshot(key: string, from: Store.LogPosition | null): Promise<Store.LogSnapshot> {
    const args = readLogArguments(from);
    return this.#reads.read(`${this.#key(key)}\n${args.join('\n')}`, async () => {
      const reply = await this.#run(READ_LOG, key, args, this.#binaryClient());
      return decodeSnapshot(reply, Date.now());
    });
  }

  /** The client decoding strings as Buffers, made on first use (a proxy, no connection). */
  #binaryClient(): RedisScriptRunner {
    this.#binary ??= this.#options.client.withTypeMapping(BUFFERS);
    return this.#binary;
  }

  #run(
    script: RedisScript,
    key: string,
    args: (string | Buffer)[],
    client: RedisScriptRunner = this.#options.client,
  ): Promise<unknown> {
    const record = this.#key(key);
    return runScript(client, script, [record, logKeyOf(record)], args, this.#options.commandTimeoutMs);
  }

  async #settle(key: string, token: string, settlement: Store.Settlement, ttlMs: number): Promise<Store.WriteResult> {
    const { state, payload } = settlement;
    const written = writeResult(await this.#run(SETTLE, key, settleArguments(token, state, payload, ttlMs)));
    this.#stops.release(this.#key(key), token); // the holder's own watch ends with its run, no look
    return written;
  }
}

/** Below this many bytes a batch is copied into a (pooled) Buffer rather than viewed. */
const COPY_BELOW = 1_024;

/**
 * An append's argument as node-redis sends it. A batch is often one small event (tens of
 * bytes, one per flush window); V8 keeps so small a typed array inside its object, and
 * reading its `.buffer` moves it out first — several times a small copy's cost, on every
 * append. A larger batch is viewed, never copied.
 */
function asRedisArgument(arg: string | Uint8Array): string | Buffer {
  if (typeof arg === 'string') return arg;
  return arg.byteLength < COPY_BELOW ? Buffer.from(arg) : Buffer.from(arg.buffer, arg.byteOffset, arg.byteLength);
}
