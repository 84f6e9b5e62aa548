/**
 * What RedisStore promises beyond the shared contract, checked against a real
 * redis-server: round trips counted by Redis, script-cache loss, expiries, Redis's clock,
 * cross-instance wake-ups on one subscriber connection, and failing fast when Redis is away.
 */
import { randomUUID } from 'node:crypto';
import { type RedisStore, RedisStoreError, RedisStoreUnavailableError } from 'answer-once/redis';
import { type AcquireResult, runOnce } from 'answer-once/server';
import { held } from 'answer-once/testing';
import { createClient, RESP_TYPES } from 'redis';
import { describe, expect, it, vi } from 'vitest';
import { rawCommand, requireRedisServer } from '../support/redis-server.js';
import { scriptRoundTrips } from '../support/redis-stats.js';
import { newKey, useRedisSuite } from '../support/redis-suite.js';
import { sleep } from '../support/sleep.js';

const hasRedis = requireRedisServer();
const LEASE = 300;
const TTL = 60_000;

/** Runs every script once, so Redis's script cache holds them (a cold cache costs one EVAL each, once). */
async function warmUp(store: RedisStore): Promise<void> {
  const key = newKey();
  const token = held(await store.acquire(key, 'fp', LEASE)).token;
  await store.renew(key, token, LEASE);
  await store.complete(key, token, 'x', TTL);
  await store.get(key);
}

describe.skipIf(!hasRedis)('RedisStore on redis-server', () => {
  const redis = useRedisSuite();
  const { open, calls, track } = redis;
  /** A store on its own client, which reconnects 50 ms after its connection drops. */
  async function reconnecting() {
    return open({ client: await redis.connect({ socket: { reconnectStrategy: 50 } }) });
  }

  it('runs a first attempt in acquire + renewals + complete round trips, and replays in one', async () => {
    const store = await open();
    const key = newKey();
    await warmUp(store);
    let token = '';
    const firstRun = await calls(async () => {
      token = held(await store.acquire(key, 'fp', LEASE)).token;
      await store.renew(key, token, LEASE);
      await store.complete(key, token, 'answer', TTL);
    });
    expect(firstRun).toMatchObject({ evalsha: 3 });
    expect(scriptRoundTrips(firstRun)).toBe(3);
    expect(firstRun).not.toHaveProperty('get');
    expect(firstRun).not.toHaveProperty('set');

    let replay: AcquireResult | undefined;
    const replayCalls = await calls(async () => {
      replay = await store.acquire(key, 'fp', LEASE);
    });
    expect(scriptRoundTrips(replayCalls)).toBe(1);
    expect(replay).toMatchObject({ acquired: false, record: { state: 'completed', result: 'answer' } });

    const read = await calls(() => store.get(key));
    expect(scriptRoundTrips(read)).toBe(1);
  });

  it('recovers when Redis forgets its scripts (SCRIPT FLUSH): one EVAL, then EVALSHA again', async () => {
    const store = await open();
    const key = newKey();
    await store.get(key);
    await rawCommand(redis.server.port, 'SCRIPT FLUSH');
    const afterFlush = await calls(() => store.acquire(key, 'fp', LEASE));
    expect(afterFlush).toMatchObject({ evalsha: 1, eval: 1 });
    const next = await calls(() => store.acquire(key, 'fp', LEASE));
    expect(next).toEqual(expect.objectContaining({ evalsha: 1 }));
    expect(next).not.toHaveProperty('eval');
    expect(await store.get(key)).toMatchObject({ state: 'processing' });
  });

  it('stores each intent at prefix + key, one hash whose Redis expiry is lease + grace, then the TTL', async () => {
    const store = await open({ prefix: 'test:' });
    const pttl = async (key: string): Promise<number> =>
      Number(/^:(-?\d+)/.exec(await rawCommand(redis.server.port, `PTTL test:${key}`))?.[1]);
    const key = newKey();
    const token = held(await store.acquire(key, 'fp', LEASE)).token;
    expect(await rawCommand(redis.server.port, `TYPE test:${key}`)).toBe('+hash\r\n');
    const processingTtl = await pttl(key);
    expect(processingTtl).toBeGreaterThan(60_000);
    expect(processingTtl).toBeLessThanOrEqual(60_000 + LEASE);

    await store.complete(key, token, 'answer', 5_000);
    const completedTtl = await pttl(key);
    expect(completedTtl).toBeGreaterThan(4_000);
    expect(completedTtl).toBeLessThanOrEqual(5_000);

    const failedKey = newKey();
    await store.fail(failedKey, held(await store.acquire(failedKey, 'fp', LEASE)).token, 'boom', 3_000);
    const failedTtl = await pttl(failedKey);
    expect(failedTtl).toBeGreaterThan(2_000);
    expect(failedTtl).toBeLessThanOrEqual(3_000);
  });

  it('judges leases by Redis’s clock, and reports deadlines in this process’s clock, even an hour off', async () => {
    const store = await open();
    const key = newKey();
    const realNow = Date.now.bind(Date);
    const skew = 3_600_000;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skew);
    try {
      const first = await store.acquire(key, 'fp', LEASE);
      expect(first.acquired && first.leaseExpiresAt - Date.now()).toBeGreaterThan(LEASE - 50);
      expect(first.acquired && first.leaseExpiresAt - Date.now()).toBeLessThanOrEqual(LEASE);
      // An hour ahead locally, yet the lease is alive: nobody takes it over.
      expect(await store.acquire(key, 'fp', LEASE)).toMatchObject({ acquired: false, record: { state: 'processing' } });
      await sleep(LEASE + 20);
      expect(await store.acquire(key, 'fp', LEASE)).toMatchObject({ acquired: true, takeover: true });
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('wakes a waiter on one instance when another instance completes, on one subscriber per store', async () => {
    const waitingInstance = await open();
    const workingInstance = await open();
    const keys = Array.from({ length: 20 }, newKey);
    const tokens = await Promise.all(keys.map(async (key) => held(await workingInstance.acquire(key, 'fp', 30_000)).token));
    const clientsBefore = Number(/connected_clients:(\d+)/.exec(await rawCommand(redis.server.port, 'INFO clients'))?.[1]);

    // Three waiters per key, 60 in all, multiplexed on one connection and one subscription per key.
    const waits = keys.flatMap((key) => [0, 1, 2].map(() => waitingInstance.wait(key, 30_000)));
    await sleep(100);
    const clientsDuring = Number(/connected_clients:(\d+)/.exec(await rawCommand(redis.server.port, 'INFO clients'))?.[1]);
    expect(clientsDuring - clientsBefore).toBe(1);
    const shardSubs = await rawCommand(redis.server.port, `PUBSUB SHARDNUMSUB ${keys[0]}`);
    expect(shardSubs).toMatch(/\r\n:1\r\n$/);

    const started = Date.now();
    await Promise.all(keys.map((key, index) => workingInstance.complete(key, tokens[index]!, `answer ${index}`, TTL)));
    const records = await Promise.all(waits);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(records.map((record) => record?.state === 'completed' && record.result)).toEqual(
      keys.flatMap((_, index) => Array(3).fill(`answer ${index}`)),
    );
  });

  it('waits without polling Redis: one read to start, one when woken', async () => {
    const waiter = await open();
    const worker = await open();
    const key = newKey();
    const token = held(await worker.acquire(key, 'fp', 30_000)).token;
    const during = await calls(async () => {
      const waiting = waiter.wait(key, 30_000);
      await sleep(1_000);
      await worker.complete(key, token, 'answer', TTL);
      expect(await waiting).toMatchObject({ state: 'completed' });
    });
    // read + complete + read after the publish: nothing in the second of waiting.
    expect(scriptRoundTrips(during)).toBe(3);
    expect(during).toMatchObject({ ssubscribe: 1, spublish: 1 });
  });

  it('leaves a key’s channel a few seconds after its last waiter is done, so subscriptions do not pile up', async () => {
    const waiter = await open();
    const worker = await open();
    const key = newKey();
    const token = held(await worker.acquire(key, 'fp', 30_000)).token;
    const subscribers = async (): Promise<string> => rawCommand(redis.server.port, `PUBSUB SHARDNUMSUB ${key}`);
    const waiting = waiter.wait(key, 30_000);
    await sleep(100);
    expect(await subscribers()).toMatch(/\r\n:1\r\n$/);
    await worker.complete(key, token, 'answer', TTL);
    expect(await waiting).toMatchObject({ state: 'completed' });
    expect(await subscribers()).toMatch(/\r\n:1\r\n$/); // kept a while for the next waiter
    await vi.waitFor(async () => expect(await subscribers()).toMatch(/\r\n:0\r\n$/), { timeout: 10_000, interval: 200 });
  });

  it('answers a wait of 0 ms, or one already aborted, with one read and no subscription', async () => {
    const store = await open();
    const key = newKey();
    await warmUp(store);
    held(await store.acquire(key, 'fp', 30_000)).token;
    const used = await calls(async () => {
      expect(await store.wait(key, 0)).toMatchObject({ state: 'processing' });
      expect(await store.wait(key, 30_000, AbortSignal.abort())).toMatchObject({ state: 'processing' });
    });
    expect(scriptRoundTrips(used)).toBe(2);
    expect(used).not.toHaveProperty('ssubscribe');
  });

  it('lets exactly one of 60 concurrent acquirers on 6 connections win, on a fresh key and on an expired lease', async () => {
    const instances = await Promise.all(Array.from({ length: 6 }, () => open()));
    const race = (key: string) =>
      Promise.all(instances.flatMap((store) => Array.from({ length: 10 }, () => store.acquire(key, 'fp', LEASE))));
    const key = newKey();
    const fresh = await race(key);
    expect(fresh.filter((claim) => claim.acquired)).toHaveLength(1);
    await sleep(LEASE + 20);
    const takeover = await race(key);
    expect(takeover.filter((claim) => claim.acquired)).toEqual([expect.objectContaining({ takeover: true })]);
  });

  it('ends pending waits with the current record on close(), and closes its subscriber connection', async () => {
    const worker = await open();
    const waiter = await open();
    const key = newKey();
    held(await worker.acquire(key, 'fp', 30_000)).token;
    const connected = async (): Promise<number> =>
      Number(/connected_clients:(\d+)/.exec(await rawCommand(redis.server.port, 'INFO clients'))?.[1]);
    const before = await connected();
    const waiting = waiter.wait(key, 30_000);
    await sleep(100);
    expect(await connected()).toBe(before + 1);
    const closedAt = Date.now();
    await waiter.close();
    expect(await waiting).toMatchObject({ state: 'processing' });
    expect(Date.now() - closedAt).toBeLessThan(5_000); // ended by close(), not by the 30 s wait
    expect(await connected()).toBe(before);
    await expect(waiter.wait(key, 1_000)).rejects.toThrow(/closed/);
  });

  it('runs a queue consumer’s work once per message across two instances, with runOnce’s defaults', async () => {
    const consumers = [await open(), await open()];
    const runs = new Map<string, number>();
    const messages = Array.from({ length: 20 }, () => `order-${randomUUID()}`);
    // At-least-once delivery: every message reaches both consumers, at the same time.
    const results = await Promise.all(
      messages.flatMap((id) =>
        consumers.map((store) =>
          runOnce(store, `answer-once:{queue:${id}}`, async () => {
            runs.set(id, (runs.get(id) ?? 0) + 1);
            await sleep(20);
            return { reply: `model answer for ${id}`, at: randomUUID() };
          }),
        ),
      ),
    );
    expect([...runs.values()]).toEqual(Array(20).fill(1));
    for (let index = 0; index < results.length; index += 2) {
      expect(results[index]!.value).toEqual(results[index + 1]!.value);
      expect([results[index]!.replayed, results[index + 1]!.replayed].sort()).toEqual([false, true]);
    }
  });

  it('replays a result byte for byte: unicode, newlines, a 1 MB answer', async () => {
    const store = await open();
    const result = `{"text":"答案 ✓ 🚀\\n\\u0000"}${'x'.repeat(1_000_000)}`;
    const key = newKey();
    await store.complete(key, held(await store.acquire(key, 'fp', LEASE)).token, result, TTL);
    const replay = await store.acquire(key, 'fp', LEASE);
    expect(replay.acquired === false && replay.record.state === 'completed' && replay.record.result === result).toBe(true);
  });

  it('works through a RESP3 client that maps strings to Buffers', async () => {
    const resp3 = await createClient({ url: redis.server.url, RESP: 3 })
      .on('error', () => {})
      .connect();
    track(resp3);
    const store = await open({ client: resp3.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }) });
    const key = newKey();
    const token = held(await store.acquire(key, 'fp', LEASE)).token;
    expect(await store.complete(key, token, 'answer ✓', TTL)).toBe('written');
    expect(await store.get(key)).toMatchObject({ state: 'completed', fingerprint: 'fp', result: 'answer ✓' });
  });

  it('reports a key of another type as a RedisStoreError, not as Redis being unavailable', async () => {
    const store = await open();
    const key = newKey();
    await rawCommand(redis.server.port, `SET ${key} not-a-hash`);
    await store.acquire(newKey(), 'fp', LEASE); // Redis's script cache
    let error: unknown;
    const used = await calls(async () => {
      error = await store.acquire(key, 'fp', LEASE).catch((caught: unknown) => caught);
    });
    // An error reply other than NOSCRIPT is final: no EVAL sent after it.
    expect(used).toMatchObject({ evalsha: 1 });
    expect(used).not.toHaveProperty('eval');
    expect(error).toBeInstanceOf(RedisStoreError);
    expect(error).not.toBeInstanceOf(RedisStoreUnavailableError);
    expect((error as Error).message).toMatch(/WRONGTYPE/);
    expect(error).toMatchObject({ code: 'store-failed' });
  });

  it('rejects with RedisStoreUnavailableError within commandTimeoutMs when Redis hangs', async () => {
    const store = await open({ commandTimeoutMs: 300 });
    const key = newKey();
    redis.server.signal('SIGSTOP');
    try {
      const started = Date.now();
      const error = await store.acquire(key, 'fp', LEASE).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RedisStoreUnavailableError);
      expect(error).toMatchObject({ code: 'store-unavailable' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(Date.now() - started).toBeLessThan(2_000); // bounded by commandTimeoutMs, not by Redis
      await expect(store.wait(newKey(), 5_000)).rejects.toBeInstanceOf(RedisStoreUnavailableError);
    } finally {
      redis.server.signal('SIGCONT');
    }
    // Redis ran the timed-out acquire once it woke: a lease nobody renews, which will lapse.
    expect(await store.get(key)).toMatchObject({ state: 'processing', fingerprint: 'fp' });
  });

  it('re-reads after its subscriber reconnects, since publishes made meanwhile are lost', async () => {
    const store = await reconnecting();
    const key = newKey();
    held(await store.acquire(key, 'fp', 30_000)).token;
    const waiting = store.wait(key, 30_000);
    await sleep(100);
    await redis.server.restart(); // no persistence in this suite: the record is gone after it
    const restartedAt = Date.now();
    expect(await waiting).toBeNull();
    expect(Date.now() - restartedAt).toBeLessThan(3_000);
  });

  it('looks again after its subscriber reconnects: a stop watch whose record was lost meanwhile ends, not at its timeout', async () => {
    const store = await reconnecting();
    const key = newKey();
    const token = held(await store.acquire(key, 'fp', 30_000)).token;
    const watching = store.watchStop(key, token, 30_000);
    await sleep(100);
    await redis.server.restart(); // no persistence in this suite: the record is gone after it
    const restartedAt = Date.now();
    expect(await watching).toBe(false);
    expect(Date.now() - restartedAt).toBeLessThan(3_000);
  });

  it('fails at once while Redis is down (disableOfflineQueue) and works again once it is back', async () => {
    const client = await redis.connect({ disableOfflineQueue: true, socket: { reconnectStrategy: 50 } });
    const store = await open({ client });
    const key = newKey();
    await redis.server.halt();
    try {
      await sleep(100);
      const started = Date.now();
      await expect(store.acquire(key, 'fp', LEASE)).rejects.toBeInstanceOf(RedisStoreUnavailableError);
      await expect(store.get(key)).rejects.toBeInstanceOf(RedisStoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(1_000); // at once, not after commandTimeoutMs (2 s)
    } finally {
      await redis.server.boot();
    }
    await vi.waitFor(() => expect(client.isReady).toBe(true), { timeout: 5_000, interval: 50 });
    expect(await store.acquire(key, 'fp', LEASE)).toMatchObject({ acquired: true });
  });
});
