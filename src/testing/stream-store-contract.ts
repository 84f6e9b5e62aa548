/**
 * The answer-log half of the store specification (`StreamStore`), as a reusable suite
 * beside `store-contract.ts`:
 *
 *   describeStreamStoreContract('MemoryStore', () => new MemoryStore());
 *
 * The same clock, options and fresh key per test as the IdempotencyStore contract.
 */
import { describe, expect, it } from 'vitest';
import { isStreamStore, type StreamStore } from '../server/store/stream-store.js';
import {
  bytes,
  claimGeneration,
  eachStreamStore,
  found,
  held,
  longKey,
  type StoreContract,
  sleep,
  text,
} from './store-harness.js';
import { describeStreamContinueContract } from './stream-store-continue-contract.js';
import { describeStreamWakeContract } from './stream-store-wake-contract.js';

/**
 * The answer-log half of the contract (`StreamStore`: append, read, stop, watchStop and
 * the generations `acquire` hands out), for every store that keeps logs.
 */
export const describeStreamStoreContract: StoreContract<StreamStore> = (name, setup, options = {}) => {
  describe(`${name} (StreamStore contract)`, () => {
    let store: StreamStore;
    let key: string;
    const { lease, slack, ttl, claim } = eachStreamStore(setup, options, (opened, fresh) => {
      [store, key] = [opened, fresh];
    });

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

    it('keeps where the first stop that names the generation asked the answer to end, and only until it settles', async () => {
      const { token, generation } = await claim();
      await store.append(key, token, { offset: 0, data: bytes('one two three'), head: 'h' });
      expect(await store.stop(key, { generation: generation - 1, offset: 3 })).toBe('stopping');
      expect(await store.get(key)).not.toHaveProperty('stopAt'); // another generation's position
      expect(await store.stop(key, { generation, offset: 7 })).toBe('stopping');
      expect(await store.stop(key, { generation, offset: 3 })).toBe('stopping'); // does not move it
      expect(await store.stop(key)).toBe('stopping');
      expect(await store.get(key)).toMatchObject({ state: 'processing', stopRequested: true, stopAt: 7 });
      expect((await store.read(key, null)).record).toMatchObject({ stopAt: 7 });
      await store.renew(key, token, 10 * lease);
      expect(await store.get(key)).toMatchObject({ stopAt: 7 });
      await store.complete(key, token, 'one two', ttl);
      expect(await store.get(key)).not.toHaveProperty('stopAt');
      expect(await store.stop(key, { generation, offset: 1 })).toBe('settled');
    });

    it('starts a takeover without the stop’s position', async () => {
      const first = held(await store.acquire(key, 'fp', lease));
      const generation = (await store.get(key))?.generation ?? 0;
      expect(await store.stop(key, { generation, offset: 5 })).toBe('stopping');
      expect(await store.get(key)).toMatchObject({ stopAt: 5 });
      await sleep(lease + slack);
      const successor = await claim();
      expect(successor.token).not.toBe(first.token);
      expect(await store.get(key)).not.toHaveProperty('stopAt');
    });

    it('refuses a stop position that is not one, changing nothing', async () => {
      const { generation } = await claim();
      for (const at of [
        { generation: 0, offset: 1 },
        { generation, offset: -1 },
        { generation, offset: 1.5 },
      ]) {
        await expect(store.stop(key, at)).rejects.toThrow(/`at`/);
      }
      expect(await store.get(key)).not.toHaveProperty('stopRequested');
    });

    it('keeps the log of a long key (a 16 KB scope) apart from one differing only in its last character', async () => {
      const long = longKey(key, 'a');
      const sibling = longKey(key, 'b');
      const first = await claimGeneration(store, long, 10 * lease);
      const other = await claimGeneration(store, sibling, 10 * lease);
      await store.append(long, first.token, { offset: 0, data: bytes('ab'), head: 'h' });
      await store.append(sibling, other.token, { offset: 0, data: bytes('xyz'), head: 'g' });
      const reading = store.read(long, { generation: first.generation, offset: 2 }, { waitMs: 20 * lease });
      await sleep(lease / 4);
      await store.append(long, first.token, { offset: 2, data: bytes('cd') });
      expect(text((await reading).log?.data ?? new Uint8Array())).toBe('cd');
      expect(await store.stop(long)).toBe('stopping');
      expect(await store.watchStop(long, first.token, 0)).toBe(true);
      expect(await store.watchStop(sibling, other.token, 0)).toBe(false);
      expect(await store.complete(long, first.token, 'answer', ttl)).toBe('written');
      const { record, log } = await store.read(long, null);
      expect(record).toMatchObject({ state: 'completed', result: 'answer' });
      expect(log).toMatchObject({ head: 'h', length: 4 });
      expect(text(log?.data ?? new Uint8Array())).toBe('abcd');
      expect((await store.read(sibling, null)).log).toMatchObject({ head: 'g', length: 3 });
    });

    it('forgets the log with its record', async () => {
      const { token } = await claim(lease);
      await store.append(key, token, { offset: 0, data: bytes('x'), head: 'h' });
      await store.complete(key, token, 'answer', lease);
      await sleep(lease + slack);
      expect(await store.read(key, null)).toEqual({ record: null, log: null });
    });
  });

  describeStreamWakeContract(name, setup, options);
  describeStreamContinueContract(name, setup, options);
};
