import { encodeKey, MemoryStore, StoreUnavailableError } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { evictionOrder } from '../../../src/server/memory/evict.js';

const TTL = 60_000;

type State = 'answered' | 'running';

/**
 * A store of `maxEntries` on a still clock, holding for each user of `holdings` one record
 * per state, in order (`key(user, 0)` first), and the keys its `evicted` events name.
 */
async function fullStore(
  maxEntries: number,
  holdings: Record<string, State[]>,
): Promise<{ store: MemoryStore; evicted: string[] }> {
  const evicted: string[] = [];
  const store = new MemoryStore({
    maxEntries,
    now: () => 0,
    onEvent: (event) => {
      if (event.type === 'evicted') evicted.push(event.key);
    },
  });
  for (const [user, states] of Object.entries(holdings)) await holds(store, user, states);
  return { store, evicted };
}

const key = (user: string, n: number): string => encodeKey({ user }, `${user}-${n}`);

/** Gives `user` one record per state, in order: answered (COMPLETED) or running (live PROCESSING). */
async function holds(store: MemoryStore, user: string, states: State[]): Promise<void> {
  for (const [n, state] of states.entries()) {
    const held = await store.acquire(key(user, n), 'fp', TTL);
    if (!held.acquired) throw new Error('expected to acquire');
    if (state === 'answered') await store.complete(key(user, n), held.token, 'answer', TTL);
  }
}

describe('MemoryStore eviction: which scope gives up a record', () => {
  it('takes from the newcomer’s own scope when another scope holds no more than it', async () => {
    const { store, evicted } = await fullStore(2, { alice: ['answered'], bob: ['answered'] });
    await store.acquire(key('bob', 1), 'fp', TTL);
    expect(evicted).toEqual([key('bob', 0)]);
    expect(await store.get(key('alice', 0))).toMatchObject({ state: 'completed' });
  });

  it('takes from the largest scope even when the newcomer’s own is smaller', async () => {
    const { store, evicted } = await fullStore(3, { alice: ['answered', 'answered'], bob: ['answered'] });
    await store.acquire(key('bob', 1), 'fp', TTL);
    expect(evicted).toEqual([key('alice', 0)]);
  });

  it('takes from the oldest scope when the largest ones tie', async () => {
    const { store, evicted } = await fullStore(2, { alice: ['answered'], bob: ['answered'] });
    await store.acquire(key('carol', 0), 'fp', TTL);
    expect(evicted).toEqual([key('alice', 0)]);
  });

  it('falls back to the next largest scope when the largest has only running intents', async () => {
    const { store, evicted } = await fullStore(9, {
      alice: ['running', 'running', 'running', 'running'],
      bob: ['answered', 'answered'],
      carol: ['answered', 'answered', 'answered'],
    });
    expect(await store.acquire(key('dave', 0), 'fp', TTL)).toMatchObject({ acquired: true });
    expect(evicted).toEqual([key('carol', 0)]);
  });

  it('falls back to the newcomer’s own oldest answer when a larger scope has only running intents', async () => {
    const { store, evicted } = await fullStore(5, {
      alice: ['running', 'running', 'running'],
      bob: ['answered', 'answered'],
    });
    expect(await store.acquire(key('bob', 2), 'fp', TTL)).toMatchObject({ acquired: true });
    expect(evicted).toEqual([key('bob', 0)]);
  });

  it('never takes an answer from a scope no larger than the newcomer’s: it is refused instead', async () => {
    const { store, evicted } = await fullStore(5, {
      alice: ['running', 'running', 'running'],
      bob: ['answered'],
      carol: ['running'],
    });
    await expect(store.acquire(key('carol', 1), 'fp', TTL)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(evicted).toEqual([]);
    expect(await store.get(key('bob', 0))).toMatchObject({ state: 'completed', result: 'answer' });
  });
});

describe('evictionOrder', () => {
  it('names no scope when there is none', () => {
    expect([...evictionOrder(new Map(), 'anyone')]).toEqual([]);
  });
});
