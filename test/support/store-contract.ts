/**
 * The specification every `IdempotencyStore` must meet, as a reusable suite:
 *
 *   describeStoreContract('MemoryStore', () => new MemoryStore());
 *   describeStoreContract('RedisStore', async () => ({ store, teardown }));
 *
 * It runs on the real clock (a networked store keeps its own time), with short leases
 * and TTLs, and a fresh key per test so suites may share one database.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStreamStore } from 'answer-once/server';
import type { AcquireResult, IdempotencyRecord, IdempotencyStore, StreamStore } from 'answer-once/server';

/** A store under test and how to dispose of it after each test. */
interface StoreContractHarness {
  readonly store: IdempotencyStore;
  readonly teardown?: () => Promise<void> | void;
}

export interface StoreContractOptions {
  /** The lease used by the suite; raise it for a slow store. @default 200 */
  readonly leaseMs?: number;
  /** How late a wake-up or expiry may be observed. @default 100 */
  readonly slackMs?: number;
}

type Setup = () => Promise<IdempotencyStore | StoreContractHarness> | IdempotencyStore | StoreContractHarness;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function isHarness(value: IdempotencyStore | StoreContractHarness): value is StoreContractHarness {
  return 'store' in value && typeof (value as { acquire?: unknown }).acquire !== 'function';
}

function held(result: AcquireResult): Extract<AcquireResult, { acquired: true }> {
  if (!result.acquired) throw new Error(`expected to acquire, found ${result.record.state}`);
  return result;
}

function found(result: AcquireResult): IdempotencyRecord {
  if (result.acquired) throw new Error('expected not to acquire');
  return result.record;
}

export function describeStoreContract(name: string, setup: Setup, options: StoreContractOptions = {}): void {
  const lease = options.leaseMs ?? 200;
  const slack = options.slackMs ?? 100;
  const ttl = 3_600_000;

  describe(`${name} (IdempotencyStore contract)`, () => {
    let store: IdempotencyStore;
    let teardown: (() => Promise<void> | void) | undefined;
    let key: string;

    beforeEach(async () => {
      const made = await setup();
      if (isHarness(made)) ({ store, teardown } = made);
      else [store, teardown] = [made, () => made.close?.()];
      key = `answer-once-contract:{${crypto.randomUUID()}}`;
    });

    afterEach(async () => {
      await teardown?.();
    });

    it('acquires a key nobody holds, with a fresh token and a lease from now', async () => {
      const before = Date.now();
      const first = held(await store.acquire(key, 'fp', lease));
      expect(first).toMatchObject({ acquired: true, takeover: false, retry: false });
      expect(first.token).toEqual(expect.any(String));
      expect(first.leaseExpiresAt).toBeGreaterThanOrEqual(before + lease - slack);
      expect(first.leaseExpiresAt).toBeLessThanOrEqual(Date.now() + lease + slack);
      expect(await store.get(key)).toMatchObject({ state: 'processing', fingerprint: 'fp', token: first.token });
    });

    it('answers a second acquire of a live intent with its PROCESSING record', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      const record = found(await store.acquire(key, 'fp', lease));
      expect(record).toMatchObject({ state: 'processing', fingerprint: 'fp', token: first.token });
    });

    it('returns the record unchanged to another fingerprint, whatever its state', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      expect(found(await store.acquire(key, 'other', lease))).toMatchObject({ state: 'processing', fingerprint: 'fp' });

      await sleep(lease + slack); // lease expired: still no takeover for another fingerprint
      expect(found(await store.acquire(key, 'other', lease))).toMatchObject({ state: 'processing', token: first.token });

      expect(await store.fail(key, first.token, 'boom', ttl)).toBe('written');
      expect(found(await store.acquire(key, 'other', lease))).toMatchObject({ state: 'failed', error: 'boom' });

      const second = held(await store.acquire(key, 'fp', lease));
      expect(await store.complete(key, second.token, 'answer', ttl)).toBe('written');
      expect(found(await store.acquire(key, 'other', lease))).toMatchObject({ state: 'completed', result: 'answer' });
      expect(await store.get(key)).toMatchObject({ state: 'completed', fingerprint: 'fp', result: 'answer' });
    });

    it('lets a new worker take over an expired lease with a new token, keeping createdAt', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      const createdAt = (await store.get(key))?.createdAt;
      await sleep(lease + slack);
      const second = held(await store.acquire(key, 'fp', lease));
      expect(second).toMatchObject({ takeover: true, retry: false });
      expect(second.token).not.toBe(first.token);
      expect((await store.get(key))?.createdAt).toBe(createdAt);
    });

    it('rejects the zombie’s renew, complete and fail after a takeover, and keeps the successor’s answer', async () => {
      const zombie = held(await store.acquire(key, 'fp', lease));
      await sleep(lease + slack);
      const successor = held(await store.acquire(key, 'fp', lease));
      expect(await store.renew(key, zombie.token, lease)).toBe('fenced');
      expect(await store.complete(key, zombie.token, 'zombie', ttl)).toBe('fenced');
      expect(await store.fail(key, zombie.token, 'zombie', ttl)).toBe('fenced');
      expect(await store.get(key)).toMatchObject({ state: 'processing', token: successor.token });
      expect(await store.complete(key, successor.token, 'successor', ttl)).toBe('written');
      expect(await store.complete(key, zombie.token, 'zombie', ttl)).toBe('fenced');
      expect(await store.get(key)).toMatchObject({ state: 'completed', result: 'successor' });
    });

    it('rejects writes with a token that never held the key, and a second complete', async () => {
      const holder = held(await store.acquire(key, 'fp', lease));
      expect(await store.complete(key, 'not-a-token', 'x', ttl)).toBe('fenced');
      expect(await store.renew(`${key}:other`, holder.token, lease)).toBe('gone');
      expect(await store.complete(key, holder.token, 'first', ttl)).toBe('written');
      expect(await store.complete(key, holder.token, 'second', ttl)).toBe('fenced');
      expect(await store.fail(key, holder.token, 'late', ttl)).toBe('fenced');
      expect(await store.get(key)).toMatchObject({ state: 'completed', result: 'first' });
    });

    it('answers a write to a record that is not there `gone`, never `fenced`: nobody holds it', async () => {
      expect(await store.renew(key, 'any-token', lease)).toBe('gone');
      expect(await store.complete(key, 'any-token', 'x', ttl)).toBe('gone');
      expect(await store.fail(key, 'any-token', 'x', ttl)).toBe('gone');
      const holder = held(await store.acquire(key, 'fp', lease));
      expect(await store.complete(key, holder.token, 'answer', lease)).toBe('written');
      await sleep(lease + slack); // the answer's TTL ran out: the record is gone
      expect(await store.renew(key, holder.token, lease)).toBe('gone');
      expect(await store.complete(key, holder.token, 'again', ttl)).toBe('gone');
      expect(await store.fail(key, holder.token, 'again', ttl)).toBe('gone');
      expect(await store.get(key)).toBeNull();
    });

    it('extends a renewed lease so nobody takes over while the holder lives', async () => {
      const holder = held(await store.acquire(key, 'fp', lease));
      for (let beat = 0; beat < 4; beat += 1) {
        await sleep(lease / 2);
        expect(await store.renew(key, holder.token, lease)).toBe('written');
      }
      expect(found(await store.acquire(key, 'fp', lease))).toMatchObject({ state: 'processing', token: holder.token });
      const record = await store.get(key);
      expect(record?.state === 'processing' && record.leaseExpiresAt).toBeGreaterThan(Date.now());
    });

    it('replays a COMPLETED record to the same fingerprint and forgets it after its TTL', async () => {
      const holder = held(await store.acquire(key, 'fp', lease));
      expect(await store.complete(key, holder.token, 'answer', 2 * lease)).toBe('written');
      expect(found(await store.acquire(key, 'fp', lease))).toMatchObject({ state: 'completed', result: 'answer' });
      const record = await store.get(key);
      expect(record?.state === 'completed' && record.completedAt).toBeGreaterThanOrEqual(record?.createdAt ?? Infinity);
      await sleep(2 * lease + slack);
      expect(await store.get(key)).toBeNull();
      expect(held(await store.acquire(key, 'fp', lease))).toMatchObject({ takeover: false, retry: false });
    });

    it('lets a FAILED intent be acquired again as a retry, and forgets it after its TTL', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      expect(await store.fail(key, first.token, 'boom', ttl)).toBe('written');
      expect(await store.get(key)).toMatchObject({ state: 'failed', error: 'boom', fingerprint: 'fp' });
      const retry = held(await store.acquire(key, 'fp', lease));
      expect(retry).toMatchObject({ takeover: false, retry: true });
      expect(retry.token).not.toBe(first.token);

      expect(await store.fail(key, retry.token, 'again', 2 * lease)).toBe('written');
      await sleep(2 * lease + slack);
      expect(await store.get(key)).toBeNull();
    });

    it('never issues the same token twice, across retries and keys', async () => {
      const tokens = new Set<string>();
      for (let round = 0; round < 10; round += 1) {
        const mine = held(await store.acquire(key, 'fp', lease));
        const elsewhere = held(await store.acquire(`${key}:${round}`, 'fp', lease));
        tokens.add(mine.token).add(elsewhere.token);
        expect(await store.fail(key, mine.token, 'boom', ttl)).toBe('written');
      }
      expect(tokens.size).toBe(20);
    });

    it('returns at once from wait when the record is unknown or already settled', async () => {
      const start = Date.now();
      expect(await store.wait(key, 5_000)).toBeNull();
      const holder = held(await store.acquire(key, 'fp', lease));
      await store.complete(key, holder.token, 'answer', ttl);
      expect(await store.wait(key, 5_000)).toMatchObject({ state: 'completed', result: 'answer' });
      expect(Date.now() - start).toBeLessThan(slack * 2);
    });

    it('wakes a waiter as soon as the holder completes', async () => {
      const holder = held(await store.acquire(key, 'fp', 10 * lease));
      const waiting = store.wait(key, 20 * lease);
      await sleep(lease / 2);
      const completedAt = Date.now();
      await store.complete(key, holder.token, 'answer', ttl);
      expect(await waiting).toMatchObject({ state: 'completed', result: 'answer' });
      expect(Date.now() - completedAt).toBeLessThan(slack);
    });

    it('wakes a waiter as soon as the holder fails', async () => {
      const holder = held(await store.acquire(key, 'fp', 10 * lease));
      const waiting = store.wait(key, 20 * lease);
      await sleep(lease / 2);
      const failedAt = Date.now();
      await store.fail(key, holder.token, 'boom', ttl);
      expect(await waiting).toMatchObject({ state: 'failed', error: 'boom' });
      expect(Date.now() - failedAt).toBeLessThan(slack);
    });

    it('wakes a waiter when the holder’s lease expires, with the expired record', async () => {
      const holder = held(await store.acquire(key, 'fp', lease));
      const record = await store.wait(key, 20 * lease);
      const now = Date.now();
      expect(record).toMatchObject({ state: 'processing', token: holder.token });
      expect(record?.state === 'processing' && record.leaseExpiresAt).toBeLessThanOrEqual(now);
      expect(now).toBeLessThan(holder.leaseExpiresAt + slack);
    });

    it('keeps a waiter waiting across renewals, then times out with the live record', async () => {
      const holder = held(await store.acquire(key, 'fp', lease));
      const start = Date.now();
      const waiting = store.wait(key, 2 * lease);
      await sleep(lease / 2);
      await store.renew(key, holder.token, lease);
      await sleep(lease / 2);
      await store.renew(key, holder.token, lease);
      await sleep(lease / 2);
      await store.renew(key, holder.token, lease);
      const record = await waiting;
      const waited = Date.now() - start;
      expect(record).toMatchObject({ state: 'processing', token: holder.token });
      expect(waited).toBeGreaterThanOrEqual(2 * lease - 5);
      expect(waited).toBeLessThan(2 * lease + slack);
    });

    it('stops waiting when the signal aborts', async () => {
      held(await store.acquire(key, 'fp', 10 * lease));
      const controller = new AbortController();
      const waiting = store.wait(key, 20 * lease, controller.signal);
      await sleep(lease / 4);
      const abortedAt = Date.now();
      controller.abort();
      expect(await waiting).toMatchObject({ state: 'processing' });
      expect(Date.now() - abortedAt).toBeLessThan(slack);
      expect(await store.wait(key, 20 * lease, controller.signal)).toMatchObject({ state: 'processing' });
    });

    it('lets many waiters on one key all wake on one write', async () => {
      const holder = held(await store.acquire(key, 'fp', 10 * lease));
      const waiters = Array.from({ length: 5 }, () => store.wait(key, 20 * lease));
      await sleep(lease / 4);
      await store.complete(key, holder.token, 'answer', ttl);
      const records = await Promise.all(waiters);
      expect(records.map((record) => record?.state)).toEqual(Array(5).fill('completed'));
    });
  });
}

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (data: Uint8Array): string => new TextDecoder().decode(data);

type StreamSetup = () => Promise<StreamStore | StreamStoreHarness> | StreamStore | StreamStoreHarness;

/** A stream store under test and how to dispose of it after each test. */
interface StreamStoreHarness {
  readonly store: StreamStore;
  readonly teardown?: () => Promise<void> | void;
}

/**
 * The answer-log half of the contract (`StreamStore`: append, read, stop, watchStop and
 * the generations `acquire` hands out), for every store that keeps logs.
 */
export function describeStreamStoreContract(name: string, setup: StreamSetup, options: StoreContractOptions = {}): void {
  const lease = options.leaseMs ?? 200;
  const slack = options.slackMs ?? 100;
  const ttl = 3_600_000;

  describe(`${name} (StreamStore contract)`, () => {
    let store: StreamStore;
    let teardown: (() => Promise<void> | void) | undefined;
    let key: string;

    beforeEach(async () => {
      const made = await setup();
      if ('store' in made && typeof (made as { append?: unknown }).append !== 'function') {
        ({ store, teardown } = made as StreamStoreHarness);
      } else {
        store = made as StreamStore;
        teardown = () => store.close?.();
      }
      key = `answer-once-contract:{${crypto.randomUUID()}}`;
    });

    afterEach(async () => {
      await teardown?.();
    });

    async function claim(leaseMs = 10 * lease): Promise<{ token: string; generation: number }> {
      const result = held(await store.acquire(key, 'fp', leaseMs));
      expect(result.generation).toEqual(expect.any(Number));
      return { token: result.token, generation: result.generation ?? Number.NaN };
    }

    it('is recognised by isStreamStore', () => {
      expect(isStreamStore(store)).toBe(true);
    });

    it('gives every claim a larger generation than the last, and every record the generation that wrote it', async () => {
      const first = await claim(lease);
      expect(await store.get(key)).toMatchObject({ state: 'processing', generation: first.generation });
      expect(await store.fail(key, first.token, 'boom', ttl)).toBeTruthy();
      expect(await store.get(key)).toMatchObject({ state: 'failed', generation: first.generation });
      const retry = await claim(lease);
      expect(retry.generation).toBeGreaterThan(first.generation);
      await sleep(lease + slack);
      const takeover = await claim(lease);
      expect(takeover.generation).toBeGreaterThan(retry.generation);
      expect(await store.complete(key, takeover.token, 'answer', ttl)).toBeTruthy();
      expect(await store.get(key)).toMatchObject({ state: 'completed', generation: takeover.generation });
    });

    it('appends the holder’s bytes in order and reads them back from any offset, head included', async () => {
      const { token, generation } = await claim();
      expect(await store.append(key, token, { offset: 0, data: bytes('hel'), head: 'HEAD' })).toEqual({
        ok: true,
        length: 3,
        stopRequested: false,
      });
      expect(await store.append(key, token, { offset: 3, data: bytes('lo, '), head: 'ignored' })).toMatchObject({
        ok: true,
        length: 7,
      });
      expect(await store.append(key, token, { offset: 7, data: bytes('world') })).toMatchObject({ ok: true, length: 12 });

      const all = await store.read(key, null);
      expect(all.record).toMatchObject({ state: 'processing', generation });
      expect(all.log).toMatchObject({ generation, head: 'HEAD', length: 12, offset: 0 });
      expect(text(all.log?.data ?? new Uint8Array())).toBe('hello, world');

      const tail = await store.read(key, { generation, offset: 5 });
      expect(tail.log).toMatchObject({ offset: 5, length: 12 });
      expect(text(tail.log?.data ?? new Uint8Array())).toBe(', world');
      const end = await store.read(key, { generation, offset: 12 });
      expect(end.log?.data.byteLength).toBe(0);
    });

    it('keeps bytes exactly: every byte value, and a head-only first append', async () => {
      const { token, generation } = await claim();
      const every = Uint8Array.from({ length: 256 }, (_, index) => index);
      expect(await store.append(key, token, { offset: 0, data: new Uint8Array(0), head: '{"status":200}' })).toMatchObject({
        ok: true,
        length: 0,
      });
      expect(await store.append(key, token, { offset: 0, data: every })).toMatchObject({ ok: true, length: 256 });
      const { log } = await store.read(key, { generation, offset: 0 });
      expect(log?.head).toBe('{"status":200}');
      expect([...(log?.data ?? [])]).toEqual([...every]);
    });

    it('refuses an append at the wrong offset, and a first append without a head, changing nothing', async () => {
      const { token } = await claim();
      await expect(store.append(key, token, { offset: 0, data: bytes('x') })).rejects.toThrow(TypeError);
      expect((await store.read(key, null)).log).toBeNull();
      await store.append(key, token, { offset: 0, data: bytes('abc'), head: 'h' });
      expect(await store.append(key, token, { offset: 2, data: bytes('X') })).toEqual({ ok: false, reason: 'offset' });
      expect(await store.append(key, token, { offset: 4, data: bytes('X') })).toEqual({ ok: false, reason: 'offset' });
      const { log } = await store.read(key, null);
      expect(text(log?.data ?? new Uint8Array())).toBe('abc');
    });

    it('fences out the appends of a token that lost the intent, and of one that never held it', async () => {
      const zombie = held(await store.acquire(key, 'fp', lease));
      await store.append(key, zombie.token, { offset: 0, data: bytes('old'), head: 'old-head' });
      expect(await store.append(key, 'not-a-token', { offset: 3, data: bytes('X') })).toEqual({
        ok: false,
        reason: 'fenced',
      });
      expect(await store.append(`${key}:none`, zombie.token, { offset: 0, data: bytes('X'), head: 'h' })).toEqual({
        ok: false,
        reason: 'gone',
      });
      await sleep(lease + slack);
      // Expired but not taken over: still held, the slow worker may go on.
      expect(await store.append(key, zombie.token, { offset: 3, data: bytes('er') })).toMatchObject({ ok: true, length: 5 });
      const successor = await claim();
      expect(await store.append(key, zombie.token, { offset: 5, data: bytes('X') })).toEqual({
        ok: false,
        reason: 'fenced',
      });
      expect(await store.append(key, successor.token, { offset: 0, data: bytes('new'), head: 'new-head' })).toMatchObject({
        ok: true,
      });
      expect(await store.append(key, zombie.token, { offset: 5, data: bytes('X') })).toEqual({
        ok: false,
        reason: 'fenced',
      });
      expect(await store.complete(key, successor.token, 'answer', ttl)).toBeTruthy();
      expect(await store.append(key, successor.token, { offset: 3, data: bytes('X') })).toEqual({
        ok: false,
        reason: 'fenced',
      });
    });

    it('replaces an older generation’s log with the new generation’s first append, never mixing them', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      await store.append(key, first.token, { offset: 0, data: bytes('first try'), head: 'h1' });
      await store.fail(key, first.token, 'boom', ttl);
      const retry = await claim();
      const between = await store.read(key, null);
      expect(between.record).toMatchObject({ state: 'processing', generation: retry.generation });
      expect(between.log?.generation ?? first.generation).toBe(first.generation); // the old one, or none yet
      await store.append(key, retry.token, { offset: 0, data: bytes('second'), head: 'h2' });
      const after = await store.read(key, { generation: first.generation ?? 0, offset: 5 });
      expect(after.log).toMatchObject({ generation: retry.generation, head: 'h2', offset: 0, length: 6 });
      expect(text(after.log?.data ?? new Uint8Array())).toBe('second');
    });

    it('extends the lease with an append that carries leaseMs, and only then', async () => {
      const holder = held(await store.acquire(key, 'fp', lease));
      await store.append(key, holder.token, { offset: 0, data: bytes('a'), head: 'h' });
      const before = await store.get(key);
      await sleep(lease / 2);
      await store.append(key, holder.token, { offset: 1, data: bytes('b'), leaseMs: 10 * lease });
      const after = await store.get(key);
      expect(before?.state === 'processing' && before.leaseExpiresAt).toBeLessThanOrEqual(holder.leaseExpiresAt + slack);
      expect(after?.state === 'processing' && after.leaseExpiresAt).toBeGreaterThan(Date.now() + 5 * lease);
      expect(found(await store.acquire(key, 'fp', lease))).toMatchObject({ state: 'processing', token: holder.token });
    });

    it('keeps only the newest chunks past retainBytes, and says where the kept bytes start', async () => {
      const { token, generation } = await claim();
      let offset = 0;
      for (const part of ['aaaa', 'bbbb', 'cccc', 'dddd']) {
        const result = await store.append(key, token, { offset, data: bytes(part), head: 'h', retainBytes: 8 });
        expect(result).toMatchObject({ ok: true });
        offset += 4;
      }
      const { log } = await store.read(key, { generation, offset: 2 });
      expect(log).toMatchObject({ length: 16, offset: 8 });
      expect(text(log?.data ?? new Uint8Array())).toBe('ccccdddd');
    });

    it('keeps a settled intent’s log readable, beside the settled record', async () => {
      const { token, generation } = await claim();
      await store.append(key, token, { offset: 0, data: bytes('partial'), head: 'h' });
      await store.complete(key, token, 'answer', ttl);
      const snapshot = await store.read(key, { generation, offset: 3 });
      expect(snapshot.record).toMatchObject({ state: 'completed', result: 'answer', generation });
      expect(text(snapshot.log?.data ?? new Uint8Array())).toBe('tial');
    });

    it('forgets the log with its record', async () => {
      const { token } = await claim(lease);
      await store.append(key, token, { offset: 0, data: bytes('x'), head: 'h' });
      await store.complete(key, token, 'answer', lease);
      await sleep(lease + slack);
      expect(await store.read(key, null)).toEqual({ record: null, log: null });
    });

    it('answers a read at once when something is new, and when nothing is and no wait was asked', async () => {
      const start = Date.now();
      expect(await store.read(key, null, { waitMs: 5_000 })).toEqual({ record: null, log: null });
      const { token, generation } = await claim();
      expect((await store.read(key, null)).log).toBeNull();
      await store.append(key, token, { offset: 0, data: bytes('abc'), head: 'h' });
      expect((await store.read(key, null, { waitMs: 5_000 })).log).toMatchObject({ length: 3 });
      expect((await store.read(key, { generation, offset: 1 }, { waitMs: 5_000 })).log).toMatchObject({ offset: 1 });
      expect((await store.read(key, { generation: generation - 1, offset: 0 }, { waitMs: 5_000 })).log).toMatchObject({
        generation,
        offset: 0,
      });
      expect(Date.now() - start).toBeLessThan(slack * 2);
    });

    it('wakes a reader waiting for the head as soon as the first append lands', async () => {
      const { token } = await claim();
      const reading = store.read(key, null, { waitMs: 20 * lease });
      await sleep(lease / 2);
      const appendedAt = Date.now();
      await store.append(key, token, { offset: 0, data: new Uint8Array(0), head: 'h' });
      expect((await reading).log).toMatchObject({ head: 'h', length: 0 });
      expect(Date.now() - appendedAt).toBeLessThan(slack);
    });

    it('wakes a reader at the end of the log as soon as more bytes land, and not before', async () => {
      const { token, generation } = await claim();
      await store.append(key, token, { offset: 0, data: bytes('ab'), head: 'h' });
      const reading = store.read(key, { generation, offset: 2 }, { waitMs: 20 * lease });
      let woke = false;
      void reading.then(() => (woke = true));
      await sleep(lease / 2);
      expect(woke).toBe(false);
      const appendedAt = Date.now();
      await store.append(key, token, { offset: 2, data: bytes('cd'), head: 'h' });
      const { log } = await reading;
      expect(text(log?.data ?? new Uint8Array())).toBe('cd');
      expect(Date.now() - appendedAt).toBeLessThan(slack);
    });

    it('wakes a waiting reader when the holder completes or fails', async () => {
      for (const settle of ['complete', 'fail'] as const) {
        key = `answer-once-contract:{${crypto.randomUUID()}}`;
        const { token, generation } = await claim();
        await store.append(key, token, { offset: 0, data: bytes('ab'), head: 'h' });
        const reading = store.read(key, { generation, offset: 2 }, { waitMs: 20 * lease });
        await sleep(lease / 4);
        const settledAt = Date.now();
        await store[settle](key, token, 'x', ttl);
        expect((await reading).record?.state).toBe(settle === 'complete' ? 'completed' : 'failed');
        expect(Date.now() - settledAt).toBeLessThan(slack);
      }
    });

    it('wakes a waiting reader when the holder’s lease expires, and answers a reader of a taken-over generation at once', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      const generation = first.generation ?? Number.NaN;
      await store.append(key, first.token, { offset: 0, data: bytes('ab'), head: 'h' });
      const expired = await store.read(key, { generation, offset: 2 }, { waitMs: 20 * lease });
      expect(expired.record).toMatchObject({ state: 'processing', token: first.token });
      expect(Date.now()).toBeLessThan(first.leaseExpiresAt + slack);

      const successor = await claim();
      const start = Date.now();
      const { record } = await store.read(key, { generation, offset: 2 }, { waitMs: 20 * lease });
      expect(record).toMatchObject({ state: 'processing', generation: successor.generation });
      expect(Date.now() - start).toBeLessThan(slack);
    });

    it('times out a reader with nothing new, and stops one whose signal aborts', async () => {
      const { token, generation } = await claim();
      await store.append(key, token, { offset: 0, data: bytes('ab'), head: 'h' });
      const start = Date.now();
      const timedOut = await store.read(key, { generation, offset: 2 }, { waitMs: lease });
      expect(timedOut.log).toMatchObject({ length: 2 });
      expect(Date.now() - start).toBeGreaterThanOrEqual(lease - 5);
      expect(Date.now() - start).toBeLessThan(lease + slack);

      const controller = new AbortController();
      const reading = store.read(key, { generation, offset: 2 }, { waitMs: 20 * lease, signal: controller.signal });
      await sleep(lease / 4);
      const abortedAt = Date.now();
      controller.abort();
      expect((await reading).log).toMatchObject({ length: 2 });
      expect(Date.now() - abortedAt).toBeLessThan(slack);
    });

    it('lets many readers wake on one append', async () => {
      const { token, generation } = await claim();
      await store.append(key, token, { offset: 0, data: bytes('a'), head: 'h' });
      const readers = Array.from({ length: 5 }, () => store.read(key, { generation, offset: 1 }, { waitMs: 20 * lease }));
      await sleep(lease / 4);
      await store.append(key, token, { offset: 1, data: bytes('b') });
      const slices = await Promise.all(readers);
      expect(slices.map(({ log }) => text(log?.data ?? new Uint8Array()))).toEqual(Array(5).fill('b'));
    });

    it('carries a stop to the holder: watchStop wakes, appends say so, the record shows it', async () => {
      const { token } = await claim();
      const watching = store.watchStop(key, token, 20 * lease);
      let woke = false;
      void watching.then(() => (woke = true));
      await store.append(key, token, { offset: 0, data: bytes('ab'), head: 'h' });
      await sleep(lease / 4);
      expect(woke).toBe(false); // its own appends do not wake it
      const stoppedAt = Date.now();
      expect(await store.stop(key)).toBe('stopping');
      expect(await watching).toBe(true);
      expect(Date.now() - stoppedAt).toBeLessThan(slack);
      expect(await store.watchStop(key, token, 20 * lease)).toBe(true);
      expect(await store.append(key, token, { offset: 2, data: bytes('c') })).toEqual({
        ok: true,
        length: 3,
        stopRequested: true,
      });
      expect(await store.get(key)).toMatchObject({ state: 'processing', stopRequested: true });
      expect(await store.stop(key)).toBe('stopping');
    });

    it('stops nothing that is not running, and a takeover starts without the stop', async () => {
      expect(await store.stop(key)).toBe('unknown');
      const first = held(await store.acquire(key, 'fp', lease));
      expect(await store.stop(key)).toBe('stopping');
      await sleep(lease + slack);
      const successor = await claim();
      expect((await store.get(key)) as { stopRequested?: boolean }).not.toMatchObject({ stopRequested: true });
      expect(await store.watchStop(key, first.token, 20 * lease)).toBe(false); // no longer held
      expect(await store.watchStop(key, successor.token, lease / 2)).toBe(false); // timed out
      await store.complete(key, successor.token, 'answer', ttl);
      expect(await store.stop(key)).toBe('settled');
      expect(await store.get(key)).toMatchObject({ state: 'completed', result: 'answer' });
    });

    it('ends watchStop when its signal aborts, or when the holder settles', async () => {
      const { token } = await claim();
      const controller = new AbortController();
      const watching = store.watchStop(key, token, 20 * lease, controller.signal);
      await sleep(lease / 4);
      controller.abort();
      expect(await watching).toBe(false);
      const settling = store.watchStop(key, token, 20 * lease);
      await sleep(lease / 4);
      const completedAt = Date.now();
      await store.complete(key, token, 'answer', ttl);
      expect(await settling).toBe(false);
      expect(Date.now() - completedAt).toBeLessThan(slack);
    });
  });
}
