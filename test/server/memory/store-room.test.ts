/**
 * MemoryStore when it is full: which record gives up its slot, what `onEvent` is told,
 * and that a record that goes (evicted or expired) takes its answer log with it.
 */

import { type IdempotencyEvent, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';

const bytes = (value: string): Uint8Array => new TextEncoder().encode(value);

function fullStore(maxEntries: number, abandonedTtlMs?: number) {
  const clock = { now: 0 };
  const events: IdempotencyEvent[] = [];
  const store = new MemoryStore({
    maxEntries,
    now: () => clock.now,
    onEvent: (event) => events.push(event),
    ...(abandonedTtlMs === undefined ? {} : { abandonedTtlMs }),
  });
  const claim = async (key: string, leaseMs = 10_000) => {
    const result = await store.acquire(key, 'fp', leaseMs);
    if (!result.acquired) throw new Error(`expected to acquire ${key}`);
    return result;
  };
  return { clock, events, store, claim };
}

describe('MemoryStore: making room', () => {
  it('lets a failed intent retry in a full store without evicting anyone’s answer: it already has its slot', async () => {
    const { events, store, claim } = fullStore(2);
    await store.complete('answered', (await claim('answered')).token, 'answer', 10_000);
    await store.fail('failed', (await claim('failed')).token, 'boom', 10_000);

    expect(await store.acquire('failed', 'fp', 1_000)).toMatchObject({ acquired: true, retry: true });
    expect(await store.get('answered')).toMatchObject({ state: 'completed', result: 'answer' });
    expect(events).toEqual([]);
  });

  it('evicts the least recently written answer, not the first key ever inserted', async () => {
    const { events, store, claim } = fullStore(2);
    const first = await claim('first');
    const second = await claim('second');
    await store.complete('second', second.token, 'two', 10_000);
    await store.complete('first', first.token, 'one', 10_000); // written last

    await claim('newcomer');
    expect(await store.get('second')).toBeNull();
    expect(await store.get('first')).toMatchObject({ state: 'completed', result: 'one' });
    expect(events).toEqual([{ type: 'evicted', key: 'second', requestId: 'second', state: 'completed' }]);
  });

  it('evicts a PROCESSING record whose lease ends exactly now: nobody holds it any more', async () => {
    const { clock, events, store, claim } = fullStore(1);
    await claim('abandoned', 100);
    clock.now = 100;
    expect(await store.acquire('newcomer', 'fp', 100)).toMatchObject({ acquired: true });
    expect(await store.get('abandoned')).toBeNull();
    expect(events).toEqual([{ type: 'evicted', key: 'abandoned', requestId: 'abandoned', state: 'processing' }]);
  });

  it('reports an eviction only for a record still alive, not for one that had already expired', async () => {
    const { clock, events, store, claim } = fullStore(1);
    await store.complete('expired', (await claim('expired')).token, 'answer', 100);
    clock.now = 100; // its TTL ends now: dropping it loses nothing
    await store.complete('live', (await claim('live')).token, 'answer', 100);
    expect(events).toEqual([]);

    clock.now = 150;
    await claim('newcomer');
    expect(events).toEqual([{ type: 'evicted', key: 'live', requestId: 'live', state: 'completed' }]);
  });

  it('drops an evicted record’s answer log: the key’s next claim starts with none', async () => {
    const { clock, store, claim } = fullStore(1);
    const dead = await claim('k', 100);
    await store.append('k', dead.token, { offset: 0, data: bytes('stale'), head: 'h' });
    clock.now = 200; // its worker died and the lease lapsed
    const other = await claim('other'); // evicts 'k'
    await store.complete('other', other.token, 'answer', 10_000);

    const next = await claim('k'); // evicts 'other'
    expect(await store.read('k', null)).toEqual({
      record: expect.objectContaining({ state: 'processing', token: next.token }),
      log: null,
    });
  });

  it('drops an expired abandoned record’s answer log: the key’s next claim starts with none', async () => {
    const { clock, store, claim } = fullStore(10, 1_000);
    const dead = await claim('k', 100);
    await store.append('k', dead.token, { offset: 0, data: bytes('stale'), head: 'h' });
    clock.now = 1_100; // lease end + abandonedTtlMs: the record is gone
    expect(await store.get('k')).toBeNull();

    const next = await claim('k');
    expect(await store.read('k', null)).toEqual({
      record: expect.objectContaining({ state: 'processing', token: next.token }),
      log: null,
    });
  });

  it('keeps a failed attempt’s log readable beside the FAILED record, as a completed one’s', async () => {
    const { store, claim } = fullStore(10);
    const { token, generation } = await claim('k');
    await store.append('k', token, { offset: 0, data: bytes('partial'), head: 'h' });
    await store.fail('k', token, 'boom', 10_000);
    const { record, log } = await store.read('k', { generation: generation ?? 0, offset: 0 });
    expect(record).toMatchObject({ state: 'failed', error: 'boom' });
    expect(log).toMatchObject({ generation, head: 'h', length: 7 });
    expect(new TextDecoder().decode(log?.data)).toBe('partial');
  });
});
