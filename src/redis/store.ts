import { randomUUID } from 'node:crypto';
import { numberOption, stringOption } from '../core/options.js';
import type { AcquireResult, IdempotencyRecord, IdempotencyStore, WriteResult } from '../server/store.js';
import { SettleChannels } from './channels.js';
import { Doorbell } from './doorbell.js';
import { normalizeRedisStoreOptions, type NormalizedRedisStoreOptions, type RedisStoreOptions } from './options.js';
import { RedisStoreReplyError } from './errors.js';
import { array, decodeRecord, integer, toLocalDeadline } from './reply.js';
import { runScript } from './run-script.js';
import { ACQUIRE } from './scripts/acquire.js';
import { READ } from './scripts/read.js';
import { RENEW } from './scripts/renew.js';
import { SETTLE } from './scripts/settle.js';
import type { RedisScript } from './scripts/define.js';

const LIBRARY = 'answer-once/redis';

/** A duration in whole milliseconds (rounded up: Redis expiries are integers), as an argument. */
function checkMs(name: string, value: number, min: number): string {
  return String(Math.ceil(numberOption(value, name, { min, integer: false }, LIBRARY)));
}

function checkText(name: string, value: string, nonEmpty = false): string {
  return stringOption(value, name, nonEmpty ? 'a non-empty string' : 'a string', nonEmpty ? (text) => text !== '' : undefined, LIBRARY);
}

/** A fenced script's reply: 1 written, 0 fenced, -1 no record. */
function writeResult(reply: unknown): WriteResult {
  const code = integer(reply);
  return code === 1 ? 'written' : code === -1 ? 'gone' : 'fenced';
}

/**
 * The `answer-once/server` store on Redis, for many server instances sharing one state.
 *
 * - acquire, renew, complete, fail, get: each ONE round trip (EVALSHA of an atomic Lua
 *   script; one EVAL more only when the server's script cache lost it);
 * - fencing tokens checked inside the scripts; stale takeover atomic, with a fresh token;
 * - leases measured by Redis's clock (`TIME`); `leaseExpiresAt` is reported in this
 *   process's clock, so instance clock skew changes nothing;
 * - every key it touches is `prefix + key`, one key per call: the key's hash tag picks
 *   the Cluster slot;
 * - `wait` is woken by a sharded publish from complete/fail, on one subscriber connection
 *   per store, and by a timer at the lease deadline — it never polls Redis.
 *
 * @example
 * const client = await createClient({ url, disableOfflineQueue: true }).on('error', log).connect();
 * const store = new RedisStore({ client });
 */
export class RedisStore implements IdempotencyStore {
  readonly #options: NormalizedRedisStoreOptions;
  readonly #channels: SettleChannels;

  constructor(options: RedisStoreOptions) {
    this.#options = normalizeRedisStoreOptions(options);
    this.#channels = new SettleChannels(this.#options.client, this.#options.commandTimeoutMs);
  }

  async acquire(key: string, fingerprint: string, leaseMs: number): Promise<AcquireResult> {
    // Random, so never issued before for this key, even after the record expired.
    const token = randomUUID();
    const grace = String(this.#options.processingGraceMs);
    const args = [checkText('fingerprint', fingerprint), checkMs('leaseMs', leaseMs, 1), grace, token];
    const reply = await this.#run(ACQUIRE, key, args);
    const receivedAt = Date.now();
    const [acquired, now, , lease, takeover, retry] = array(reply, 6);
    if (integer(acquired) !== 1) {
      const record = decodeRecord(reply, receivedAt);
      if (!record) throw new RedisStoreReplyError('answer-once/redis: acquire refused without a record');
      return { acquired: false, record };
    }
    return {
      acquired: true,
      token,
      leaseExpiresAt: toLocalDeadline(integer(lease), integer(now), receivedAt),
      takeover: integer(takeover) === 1,
      retry: integer(retry) === 1,
    };
  }

  async renew(key: string, token: string, leaseMs: number): Promise<WriteResult> {
    const args = [checkText('token', token), checkMs('leaseMs', leaseMs, 1), String(this.#options.processingGraceMs)];
    return writeResult(await this.#run(RENEW, key, args));
  }

  async complete(key: string, token: string, result: string, ttlMs: number): Promise<WriteResult> {
    return this.#settle(key, token, 'completed', result, ttlMs);
  }

  async fail(key: string, token: string, error: string, ttlMs: number): Promise<WriteResult> {
    return this.#settle(key, token, 'failed', error, ttlMs);
  }

  async get(key: string): Promise<IdempotencyRecord | null> {
    const reply = await this.#run(READ, key, []);
    return decodeRecord(reply, Date.now());
  }

  async wait(key: string, timeoutMs: number, signal?: AbortSignal): Promise<IdempotencyRecord | null> {
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

  /** Closes the subscriber connection the store opened; pending `wait`s return early. The client stays open. */
  async close(): Promise<void> {
    await this.#channels.close();
  }

  #key(key: string): string {
    return this.#options.prefix + checkText('key', key, true);
  }

  #run(script: RedisScript, key: string, args: string[]): Promise<unknown> {
    return runScript(this.#options.client, script, this.#key(key), args, this.#options.commandTimeoutMs);
  }

  async #settle(
    key: string,
    token: string,
    state: 'completed' | 'failed',
    payload: string,
    ttlMs: number,
  ): Promise<WriteResult> {
    checkText(state === 'completed' ? 'result' : 'error', payload);
    const args = [checkText('token', token), state, payload, checkMs('ttlMs', ttlMs, 1)];
    return writeResult(await this.#run(SETTLE, key, args));
  }
}
