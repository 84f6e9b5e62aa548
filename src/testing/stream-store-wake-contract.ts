/**
 * The waking half of the StreamStore contract (run by `describeStreamStoreContract`):
 * reads that wait for bytes, a settle or a lapsed lease, and stops carried to the holder.
 */
import { describe, expect, it } from 'vitest';
import type { StreamStore } from '../server/store/stream-store.js';
import { bytes, eachStreamStore, held, type StoreContract, sleep, text } from './store-harness.js';

/**
 * The waking half of the StreamStore contract alone (`describeStreamStoreContract` runs
 * it too): reads woken by appends, settles and lapsed leases, and stops carried to the holder.
 */
export const describeStreamWakeContract: StoreContract<StreamStore> = (name, setup, options = {}) => {
  describe(`${name} (StreamStore contract: waking readers and stops)`, () => {
    let store: StreamStore;
    let key: string;
    const { lease, slack, ttl, claim } = eachStreamStore(setup, options, (opened, fresh) => {
      [store, key] = [opened, fresh];
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

    it.each([
      ['complete', 'completed'],
      ['fail', 'failed'],
    ] as const)('wakes a waiting reader when the holder settles (%s)', async (settle, state) => {
      const { token, generation } = await claim();
      await store.append(key, token, { offset: 0, data: bytes('ab'), head: 'h' });
      const reading = store.read(key, { generation, offset: 2 }, { waitMs: 20 * lease });
      await sleep(lease / 4);
      const settledAt = Date.now();
      await store[settle](key, token, 'x', ttl);
      expect((await reading).record?.state).toBe(state);
      expect(Date.now() - settledAt).toBeLessThan(slack);
    });

    it('wakes a waiting reader when the holder’s lease expires, and a reader of a taken-over generation at the successor’s first append', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      const generation = first.generation ?? Number.NaN;
      await store.append(key, first.token, { offset: 0, data: bytes('ab'), head: 'h' });
      const expired = await store.read(key, { generation, offset: 2 }, { waitMs: 20 * lease });
      expect(expired.record).toMatchObject({ state: 'processing', token: first.token });
      expect(Date.now()).toBeLessThan(first.leaseExpiresAt + slack);

      // The successor may continue the logged answer (§ 14.12): its readers wait for its choice.
      const successor = await claim();
      const reading = store.read(key, { generation, offset: 2 }, { waitMs: 20 * lease });
      await sleep(slack);
      await store.append(key, successor.token, { offset: 0, data: bytes('new'), head: 'h' });
      const start = Date.now();
      const { record, log } = await reading;
      expect(record).toMatchObject({ state: 'processing', generation: successor.generation });
      expect(log).toMatchObject({ generation: successor.generation, length: 3 });
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

    // A store on few connections (a PostgreSQL pool of one, as on serverless) must not let
    // its waiting take the connection its statements need, nor keep it after the waits.
    it('serves every other call while readers and waiters wait, and goes on serving after they are done', async () => {
      const { token, generation } = await claim();
      await store.append(key, token, { offset: 0, data: bytes('a'), head: 'h' });
      const readers = Array.from({ length: 3 }, () => store.read(key, { generation, offset: 1 }, { waitMs: 20 * lease }));
      const waiters = Array.from({ length: 2 }, () => store.wait(key, 20 * lease));
      const watching = store.watchStop(key, token, 20 * lease);
      await sleep(lease / 4);
      const other = `answer-once-contract:{${crypto.randomUUID()}}`;
      const started = Date.now();
      const otherHolder = held(await store.acquire(other, 'fp', 10 * lease));
      expect(await store.get(key)).toMatchObject({ state: 'processing', token });
      expect(await store.append(key, token, { offset: 1, data: bytes('b') })).toMatchObject({ ok: true, length: 2 });
      expect(Date.now() - started).toBeLessThan(slack * 2);
      const slices = await Promise.all(readers);
      expect(slices.map(({ log }) => text(log?.data ?? new Uint8Array()))).toEqual(['b', 'b', 'b']);
      await store.complete(key, token, 'answer', ttl);
      expect(await Promise.all(waiters)).toEqual([
        expect.objectContaining({ state: 'completed', result: 'answer' }),
        expect.objectContaining({ state: 'completed', result: 'answer' }),
      ]);
      expect(await watching).toBe(false);

      // Nobody waits now: a new wait is woken again, and every call is served.
      const again = store.wait(other, 20 * lease);
      await sleep(lease / 4);
      const completedAt = Date.now();
      expect(await store.complete(other, otherHolder.token, 'other answer', ttl)).toBe('written');
      expect(await again).toMatchObject({ state: 'completed', result: 'other answer' });
      expect(Date.now() - completedAt).toBeLessThan(slack);
      expect(await store.get(key)).toMatchObject({ state: 'completed', result: 'answer' });
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
};
