/**
 * What RedisStore's answer log promises beyond the shared StreamStore contract, on a real
 * redis-server: round trips counted by Redis, readers and holders on other instances woken
 * by the writes (never by polling), the log's expiry following its record's, any bytes
 * kept exactly, and a 2,000-event answer read back byte for byte from any event.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { AcquireResult } from 'answer-once/server';
import { describe, expect, it, vi } from 'vitest';
import { rawCommand, requireRedisServer } from '../support/redis-server.js';
import { scriptRoundTrips } from '../support/redis-stats.js';
import { newKey, useRedisSuite } from '../support/redis-suite.js';
import { sleep } from '../support/sleep.js';

const hasRedis = requireRedisServer();
const TTL = 60_000;
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function claimOf(result: AcquireResult): { token: string; generation: number } {
  if (!result.acquired) throw new Error(`expected to acquire, found ${result.record.state}`);
  return { token: result.token, generation: result.generation ?? Number.NaN };
}

describe.skipIf(!hasRedis)('RedisStore answer logs on redis-server', () => {
  const redis = useRedisSuite();
  /** One server instance's store: its own connection, as a second process would have. */
  const instance = () => redis.open();
  const { calls } = redis;
  /** A new intent claimed on `store`, its log holding `ab` (head `h`). */
  async function loggedAb(store: Awaited<ReturnType<typeof instance>>) {
    const key = newKey();
    const { token, generation } = claimOf(await store.acquire(key, 'fp', 30_000));
    await store.append(key, token, { offset: 0, data: bytes('ab'), head: 'h' });
    return { key, token, generation };
  }
  const pttl = async (key: string): Promise<number> =>
    Number(/^:(-?\d+)/.exec(await rawCommand(redis.server.port, `PTTL ${key}`))?.[1]);

  it('appends in one round trip and reads record + log in one', async () => {
    const store = await instance();
    const key = newKey();
    const { token, generation } = claimOf(await store.acquire(key, 'fp', 5_000));
    await store.append(key, token, { offset: 0, data: bytes('warm'), head: 'h' }); // script cache
    await store.read(key, null);
    const appended = await calls(() => store.append(key, token, { offset: 4, data: bytes('-up'), leaseMs: 5_000 }));
    expect(scriptRoundTrips(appended)).toBe(1);
    expect(appended).toMatchObject({ evalsha: 1, xadd: 1, spublish: 1 });
    const read = await calls(() => store.read(key, { generation, offset: 2 }));
    expect(scriptRoundTrips(read)).toBe(1);
  });

  it('appends after its own last append without reading the log back, and pushes the keys’ expiry back only when due', async () => {
    const grace = 400;
    const store = await redis.open({ processingGraceMs: grace });
    const key = newKey();
    const { token } = claimOf(await store.acquire(key, 'fp', 5_000));
    await store.append(key, token, { offset: 0, data: bytes('warm'), head: 'h', leaseMs: 5_000 });
    const leaseOf = async (): Promise<number> => {
      const record = await store.get(key);
      if (record?.state !== 'processing') throw new Error(`expected a processing record, found ${record?.state}`);
      return record.leaseExpiresAt;
    };
    const leaseBefore = await leaseOf();
    await sleep(20);

    const next = await calls(() => store.append(key, token, { offset: 4, data: bytes('-up'), leaseMs: 5_000 }));
    expect(next).toMatchObject({ evalsha: 1, hmget: 1, xadd: 1, hset: 1, spublish: 1 });
    expect(next).not.toHaveProperty('xrevrange');
    expect(next).not.toHaveProperty('pexpire');
    // The lease is renewed all the same, and both keys still outlive it by the grace.
    expect(await leaseOf()).toBeGreaterThan(leaseBefore);
    expect(await pttl(key)).toBeGreaterThan(5_000 + grace - 50);
    expect(Math.abs((await pttl(`${key}:log`)) - (await pttl(key)))).toBeLessThan(100);

    // Half a grace later the keys would no longer outlive the lease by a grace: pushed back.
    await sleep(grace / 2 + 50);
    const due = await calls(() => store.append(key, token, { offset: 7, data: bytes('!'), leaseMs: 5_000 }));
    expect(due).toMatchObject({ pexpire: 2 });
    expect(await pttl(key)).toBeGreaterThan(5_000 + grace - 50);
    expect(new TextDecoder().decode((await store.read(key, null)).log?.data)).toBe('warm-up!');
  });

  it('wakes a reader on another instance with the appended bytes, without polling Redis', async () => {
    const producer = await instance();
    const reader = await instance();
    const { key, token, generation } = await loggedAb(producer);
    let wokeAfter = 0;
    const during = await calls(async () => {
      const reading = reader.read(key, { generation, offset: 2 }, { waitMs: 30_000 });
      await sleep(1_000);
      const appendedAt = performance.now();
      await producer.append(key, token, { offset: 2, data: bytes('cd') });
      const { log } = await reading;
      wokeAfter = performance.now() - appendedAt;
      expect(new TextDecoder().decode(log?.data)).toBe('cd');
    });
    // read, read again once subscribed, the append, the read it woke: nothing in the second of waiting.
    expect(scriptRoundTrips(during)).toBe(4);
    expect(during).toMatchObject({ ssubscribe: 2 });
    expect(wokeAfter).toBeLessThan(100); // a publish and one read, with room for a loaded machine

    // The reader's next read, as a follower makes one per batch: no new subscription.
    const next = await calls(async () => {
      const reading = reader.read(key, { generation, offset: 4 }, { waitMs: 30_000 });
      await sleep(100);
      await producer.append(key, token, { offset: 4, data: bytes('ef') });
      await reading;
    });
    expect(scriptRoundTrips(next)).toBe(3);
    expect(next).not.toHaveProperty('ssubscribe');
    expect(next).not.toHaveProperty('sunsubscribe');
  });

  it('answers a read without a wait, or with its signal already aborted, in one round trip and no subscription', async () => {
    const store = await instance();
    const { key, generation } = await loggedAb(store);
    await store.read(key, null); // script cache
    const used = await calls(async () => {
      expect((await store.read(key, { generation, offset: 2 })).log).toMatchObject({ length: 2 });
      const aborted = await store.read(key, { generation, offset: 2 }, { waitMs: 30_000, signal: AbortSignal.abort() });
      expect(aborted.log).toMatchObject({ length: 2 });
    });
    expect(scriptRoundTrips(used)).toBe(2);
    expect(used).not.toHaveProperty('ssubscribe');
  });

  it('gives concurrent reads of different intents each its own intent’s log', async () => {
    const store = await instance();
    const keys = [newKey(), newKey()];
    for (const [index, key] of keys.entries()) {
      const { token } = claimOf(await store.acquire(key, 'fp', 30_000));
      await store.append(key, token, { offset: 0, data: bytes(`answer ${index}`), head: 'h' });
    }
    const snapshots = await Promise.all(keys.map((key) => store.read(key, null)));
    expect(snapshots.map(({ log }) => new TextDecoder().decode(log?.data))).toEqual(['answer 0', 'answer 1']);
  });

  it('leaves a reader’s channels a few seconds after its read is done, so subscriptions do not pile up', async () => {
    const producer = await instance();
    const reader = await instance();
    const { key, generation } = await loggedAb(producer);
    const subscribers = async (): Promise<string> => rawCommand(redis.server.port, `PUBSUB SHARDNUMSUB ${key} ${key}:log`);
    // Nothing new past offset 2: the read listens on the record's and the log's channels, then times out.
    expect((await reader.read(key, { generation, offset: 2 }, { waitMs: 200 })).log).toMatchObject({ length: 2 });
    expect(await subscribers()).toMatch(/\r\n:1\r\n\$\d+\r\n.*\r\n:1\r\n$/);
    await vi.waitFor(async () => expect(await subscribers()).toMatch(/\r\n:0\r\n\$\d+\r\n.*\r\n:0\r\n$/), {
      timeout: 10_000,
      interval: 200,
    });
  });

  it('tells the holder on one instance of a stop sent to another, and never wakes it for its own appends', async () => {
    const holder = await instance();
    const other = await instance();
    const key = newKey();
    const { token } = claimOf(await holder.acquire(key, 'fp', 30_000));
    await holder.append(key, token, { offset: 0, data: bytes('x'), head: 'h' });
    await other.stop(newKey()); // Redis's script cache, so a miss costs nothing below
    await holder.watchStop(newKey(), token, 0);
    let heardAfter = 0;
    const during = await calls(async () => {
      const watching = holder.watchStop(key, token, 30_000);
      await sleep(100);
      for (let index = 1; index <= 20; index += 1) {
        await holder.append(key, token, { offset: index, data: bytes('y') });
      }
      const stoppedAt = performance.now();
      expect(await other.stop(key)).toBe('stopping');
      expect(await watching).toBe(true);
      heardAfter = performance.now() - stoppedAt;
    });
    expect(heardAfter).toBeLessThan(100);
    // One look at the start, 20 appends, the stop, one look when woken: the appends woke nothing.
    expect(scriptRoundTrips(during)).toBe(1 + 20 + 1 + 1);
    expect(await holder.append(key, token, { offset: 21, data: bytes('z') })).toMatchObject({
      ok: true,
      stopRequested: true,
    });
  });

  it('keeps the log on the record’s expiry: the lease’s while it runs, then at most 30 s once settled', async () => {
    const store = await instance();
    const key = newKey();
    const log = `${key}:log`;
    const { token } = claimOf(await store.acquire(key, 'fp', 5_000));
    await store.append(key, token, { offset: 0, data: bytes('a'), head: 'h' });
    expect(await rawCommand(redis.server.port, `TYPE ${log}`)).toBe('+stream\r\n');
    expect(Math.abs((await pttl(log)) - (await pttl(key)))).toBeLessThan(200);

    await store.append(key, token, { offset: 1, data: bytes('b'), leaseMs: 20_000 });
    expect(await pttl(log)).toBeGreaterThan(60_000 + 19_000); // lease + processingGraceMs, as the record
    expect(Math.abs((await pttl(log)) - (await pttl(key)))).toBeLessThan(200);
    await store.renew(key, token, 40_000);
    expect(await pttl(log)).toBeGreaterThan(60_000 + 39_000);

    await store.complete(key, token, 'answer', TTL * 10);
    expect(await pttl(key)).toBeGreaterThan(TTL * 9);
    expect(await pttl(log)).toBeLessThanOrEqual(30_000);
    expect(await pttl(log)).toBeGreaterThan(29_000);

    const short = newKey();
    const claim = claimOf(await store.acquire(short, 'fp', 5_000));
    await store.append(short, claim.token, { offset: 0, data: bytes('a'), head: 'h' });
    await store.fail(short, claim.token, 'boom', 2_000);
    expect(await pttl(`${short}:log`)).toBeLessThanOrEqual(2_000);
  });

  it('keeps bytes that are not UTF-8 exactly, in appends of every size', async () => {
    const store = await instance();
    const key = newKey();
    const { token, generation } = claimOf(await store.acquire(key, 'fp', 5_000));
    const parts = [Uint8Array.of(0xff, 0xfe, 0x00, 0xc3), randomBytes(70_000), Uint8Array.of(0x28), randomBytes(1)];
    let offset = 0;
    for (const part of parts) {
      expect(await store.append(key, token, { offset, data: part, head: 'h' })).toMatchObject({ ok: true });
      offset += part.byteLength;
    }
    const whole = Buffer.concat(parts);
    const { log } = await store.read(key, null);
    expect(Buffer.from(log!.data).equals(whole)).toBe(true);
    const tail = await store.read(key, { generation, offset: 3 });
    expect(Buffer.from(tail.log!.data).equals(whole.subarray(3))).toBe(true);
  });

  it('reads a 2,000-event answer back byte for byte, from the start and after any event', async () => {
    const producer = await instance();
    const reader = await instance();
    const key = newKey();
    const { token, generation } = claimOf(await producer.acquire(key, 'fp', 30_000));
    const events = Array.from({ length: 2_000 }, (_, index) => bytes(`data: token ${index} ✓ ${'·'.repeat(index % 7)}\n\n`));
    const ends: number[] = []; // the offset just after each event
    for (const event of events) ends.push((ends.at(-1) ?? 0) + event.byteLength);
    // Batches of 40 events, as a flush window would gather them.
    for (let start = 0; start < events.length; start += 40) {
      const offset = start === 0 ? 0 : ends[start - 1]!;
      const data = Buffer.concat(events.slice(start, start + 40));
      const result = await producer.append(key, token, { offset, data, head: '{"v":1}' });
      expect(result).toMatchObject({ ok: true, length: offset + data.byteLength });
    }
    const whole = Buffer.concat(events);
    const { log } = await reader.read(key, null);
    expect(log).toMatchObject({ generation, length: whole.byteLength, offset: 0 });
    expect(Buffer.from(log!.data).equals(whole)).toBe(true);
    for (const k of [1, 17, 999, 1_999]) {
      const resumed = await reader.read(key, { generation, offset: ends[k - 1]! });
      expect(Buffer.from(resumed.log!.data).equals(whole.subarray(ends[k - 1]!))).toBe(true);
    }
  });

  it('names a key without a hash tag’s log on its slot, and refuses a key no log name can share a slot with', async () => {
    const store = await instance();
    const key = `plain-${randomUUID()}`;
    const { token } = claimOf(await store.acquire(key, 'fp', 5_000));
    await store.append(key, token, { offset: 0, data: bytes('a'), head: 'h' });
    expect(await rawCommand(redis.server.port, `TYPE {${key}}:log`)).toBe('+stream\r\n');
    const slot = async (name: string): Promise<string> =>
      rawCommand(redis.server.port, `CLUSTER KEYSLOT ${name}`).catch(() => '');
    // CLUSTER KEYSLOT works on a standalone server too (cluster mode off: it still hashes).
    const [recordSlot, logSlot] = [await slot(key), await slot(`{${key}}:log`)];
    if (recordSlot.startsWith(':')) expect(logSlot).toBe(recordSlot);
    await expect(store.read('a{}b}', null)).rejects.toThrow(/hash tag/);
  });
});
