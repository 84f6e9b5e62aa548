/**
 * The continuation half of the StreamStore contract (run by `describeStreamStoreContract`):
 * a new claim that continues the log an earlier generation left (PROTOCOL.md § 14.12),
 * atomically and fenced, and the readers of that generation, who wait for its choice.
 */
import { describe, expect, it } from 'vitest';
import type { StreamStore } from '../server/store/stream-store.js';
import { bytes, eachStreamStore, type StoreContract, sleep, text } from './store-harness.js';

/**
 * The continuation half of the contract alone (`describeStreamStoreContract` runs it too):
 * `append` with `continues`, the record's `continues` through complete and fail, a stop's
 * position in the continued generation, and readers held while a claim chooses.
 */
export const describeStreamContinueContract: StoreContract<StreamStore> = (name, setup, options = {}) => {
  describe(`${name} (StreamStore contract: continued generations)`, () => {
    let store: StreamStore;
    let key: string;
    const { lease, slack, ttl, claim } = eachStreamStore(setup, options, (opened, fresh) => {
      [store, key] = [opened, fresh];
    });

    /** A first generation that logged `abc` and failed, and the retry's claim. */
    const retried = async () => {
      const first = await claim();
      await store.append(key, first.token, { offset: 0, data: bytes('abc'), head: 'H' });
      await store.fail(key, first.token, 'broke', ttl);
      return { first, retry: await claim() };
    };

    it('continues an earlier generation’s log from its length; the record keeps which one, through complete', async () => {
      const { first, retry } = await retried();
      expect(
        await store.append(key, retry.token, { offset: 3, data: bytes('de'), head: 'H', continues: first.generation }),
      ).toEqual({ ok: true, length: 5, stopRequested: false });
      // Later appends go to the continued log, named or not.
      expect(
        await store.append(key, retry.token, { offset: 5, data: bytes('f'), continues: first.generation }),
      ).toMatchObject({
        ok: true,
        length: 6,
      });
      expect(await store.append(key, retry.token, { offset: 6, data: bytes('g') })).toMatchObject({ ok: true, length: 7 });
      const { record, log } = await store.read(key, null);
      expect(record).toMatchObject({ state: 'processing', generation: retry.generation, continues: first.generation });
      expect(log).toMatchObject({ generation: first.generation, head: 'H', length: 7, offset: 0 });
      expect(text(log?.data ?? new Uint8Array())).toBe('abcdefg');
      expect(await store.complete(key, retry.token, 'answer', ttl)).toBe('written');
      expect(await store.get(key)).toMatchObject({
        state: 'completed',
        generation: retry.generation,
        continues: first.generation,
      });
    });

    it('refuses a continuation of a log that is not kept, or not as long, changing nothing', async () => {
      const { first, retry } = await retried();
      for (const [offset, continues] of [
        [2, first.generation],
        [4, first.generation],
        [3, first.generation - 1],
      ] as const) {
        expect(await store.append(key, retry.token, { offset, data: bytes('X'), head: 'H', continues })).toEqual({
          ok: false,
          reason: 'offset',
        });
      }
      const before = await store.read(key, null);
      expect(before.record?.continues).toBeUndefined();
      expect(text(before.log?.data ?? new Uint8Array())).toBe('abc');
      // Its own log replaces the old one as ever; there is nothing to continue after that.
      expect(await store.append(key, retry.token, { offset: 0, data: bytes('xy'), head: 'H2' })).toMatchObject({ ok: true });
      expect(await store.append(key, retry.token, { offset: 3, data: bytes('d'), continues: first.generation })).toEqual({
        ok: false,
        reason: 'offset',
      });
      expect((await store.read(key, null)).log).toMatchObject({ generation: retry.generation, length: 2 });
    });

    it('fences a continuation by another token, and starts the next claim without it', async () => {
      const { first, retry } = await retried();
      expect(await store.append(key, first.token, { offset: 3, data: bytes('X'), continues: first.generation })).toEqual({
        ok: false,
        reason: 'fenced',
      });
      await store.append(key, retry.token, { offset: 3, data: bytes('d'), head: 'H', continues: first.generation });
      await store.fail(key, retry.token, 'broke again', ttl);
      expect(await store.get(key)).toMatchObject({ state: 'failed', continues: first.generation });
      const third = await claim();
      expect((await store.get(key))?.continues).toBeUndefined();
      // The third claim may continue the same answer in turn.
      expect(
        await store.append(key, third.token, { offset: 4, data: bytes('e'), head: 'H', continues: first.generation }),
      ).toMatchObject({ ok: true, length: 5 });
    });

    it('keeps a stop’s position in the continued generation', async () => {
      const { first, retry } = await retried();
      await store.append(key, retry.token, { offset: 3, data: bytes('de'), head: 'H', continues: first.generation });
      expect(await store.stop(key, { generation: retry.generation, offset: 1 })).toBe('stopping');
      expect(await store.get(key)).not.toHaveProperty('stopAt'); // not the answer's generation
      expect(await store.stop(key, { generation: first.generation, offset: 4 })).toBe('stopping');
      expect(await store.get(key)).toMatchObject({ stopRequested: true, stopAt: 4 });
    });

    it('holds a reader of the logged generation while the new claim has not appended, and wakes it when it continues', async () => {
      const { first, retry } = await retried();
      const start = Date.now();
      const reading = store.read(key, { generation: first.generation, offset: 3 }, { waitMs: 20 * lease });
      await sleep(slack);
      await store.append(key, retry.token, { offset: 3, data: bytes('de'), head: 'H', continues: first.generation });
      const { record, log } = await reading;
      expect(Date.now() - start).toBeGreaterThanOrEqual(slack - 5);
      expect(record).toMatchObject({ generation: retry.generation, continues: first.generation });
      expect(log).toMatchObject({ generation: first.generation, offset: 3, length: 5 });
      expect(text(log?.data ?? new Uint8Array())).toBe('de');
    });

    it('wakes such a reader when the new claim replaces the log instead', async () => {
      const { first, retry } = await retried();
      const reading = store.read(key, { generation: first.generation, offset: 3 }, { waitMs: 20 * lease });
      await sleep(slack);
      await store.append(key, retry.token, { offset: 0, data: bytes('new'), head: 'H' });
      const start = Date.now();
      const { record, log } = await reading;
      expect(Date.now() - start).toBeLessThan(slack);
      expect(record?.continues).toBeUndefined();
      expect(log).toMatchObject({ generation: retry.generation, length: 3 });
    });
  });
};
