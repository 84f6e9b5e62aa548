/**
 * The run's claim on its intent when the store loses the record mid-work (PROTOCOL.md
 * § 7.2): the first write that finds it gone claims it again, every other write shares
 * that one claim — two claims by one run would fence each other.
 */

import { type AcquireResult, type IdempotencyEvent, type IdempotencyStore, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { Holder } from '../../../src/server/run/holder.js';

const KEY = 'answer-once:{alice::holder-0001}';
const LEASE = 30_000;

function holderOn(store: IdempotencyStore, token: string, events: IdempotencyEvent[] = []): Holder {
  return new Holder(store, KEY, token, 1, {
    fingerprint: 'fp',
    leaseMs: LEASE,
    storeTimeoutMs: 5_000,
    report: (event) => events.push({ ...event, requestId: 'holder-0001' } as IdempotencyEvent),
  });
}

/** A store that lost every record: each acquire claims, and is counted. */
function emptied() {
  const store = new MemoryStore();
  let acquires = 0;
  const counting: IdempotencyStore = {
    acquire: (...args): Promise<AcquireResult> => {
      acquires += 1;
      return store.acquire(...args);
    },
    renew: (...args) => store.renew(...args),
    complete: (...args) => store.complete(...args),
    fail: (...args) => store.fail(...args),
    get: (...args) => store.get(...args),
    wait: (...args) => store.wait(...args),
  };
  return { store: counting, acquires: () => acquires };
}

describe('Holder', () => {
  it('makes one claim for writes that find the record gone together, and every one goes on under its token', async () => {
    const { store, acquires } = emptied();
    const events: IdempotencyEvent[] = [];
    const holder = holderOn(store, 'lost-token', events);
    const reclaimed: string[] = [];
    holder.onReclaimed((token) => reclaimed.push(token));
    const [append, renew] = await Promise.all([
      holder.reclaim('append', 'lost-token'),
      holder.reclaim('renew', 'lost-token'),
    ]);
    expect([append, renew]).toEqual([true, true]);
    expect(acquires()).toBe(1);
    expect(holder.token).not.toBe('lost-token');
    expect(reclaimed).toEqual([holder.token]);
    expect(await store.renew(KEY, holder.token, LEASE)).toBe('written');
    expect(events).toEqual([expect.objectContaining({ type: 'record-lost', operation: 'append', reclaimed: true })]);
  });

  it('does not claim again for a write under a token replaced since: it goes on under the new one', async () => {
    const { store, acquires } = emptied();
    const holder = holderOn(store, 'lost-token');
    await holder.reclaim('append', 'lost-token');
    expect(await holder.reclaim('complete', 'lost-token')).toBe(true);
    expect(acquires()).toBe(1);
  });

  it('says so when another worker claimed the intent first, and keeps its token (its writes are fenced)', async () => {
    const store = new MemoryStore();
    const rival = await store.acquire(KEY, 'fp', LEASE);
    expect(rival.acquired).toBe(true);
    const events: IdempotencyEvent[] = [];
    const holder = holderOn(store, 'lost-token', events);
    expect(await holder.reclaim('renew', 'lost-token')).toBe(false);
    expect(holder.token).toBe('lost-token');
    expect(events).toEqual([expect.objectContaining({ type: 'record-lost', reclaimed: false })]);
  });
});
