import { encodeKey, MemoryStore, StoreUnavailableError } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { evictionOrder } from '../../../src/server/memory/evict.js';

const TTL = 60_000;

/** A full store on a still clock, and the keys its `evicted` events name. */
function fullStore(maxEntries: number): { store: MemoryStore; evicted: string[] } {
  const evicted: string[] = [];
  const store = new MemoryStore({
    maxEntries,
    now: () => 0,
    onEvent: (event) => {
      if (event.type === 'evicted') evicted.push(event.key);
    },
  });
  return { store, evicted };
}

const key = (user: string, n: number): string => encodeKey({ user }, `${user}-${n}`);

/** Gives `user` one record per state, in order: answered (COMPLETED) or running (live PROCESSING). */
async function holds(store: MemoryStore, user: string, ...states: ('answered' | 'running')[]): Promise<void> {
  for (const [n, state] of states.entries()) {
    const held = await store.acquire(key(user, n), 'fp', TTL);
    if (!held.acquired) throw new Error('expected to acquire');
    if (state === 'answered') await store.complete(key(user, n), held.token, 'answer', TTL);
  }
}

describe('MemoryStore eviction: which scope gives up a record', () => {
  it('takes from the newcomer’s own scope when another scope holds no more than it', async () => {
    const { store, evicted } = fullStore(2);
    await holds(store, 'alice', 'answered');
    await holds(store, 'bob', 'answered');
    await store.acquire(key('bob', 1), 'fp', TTL);
    expect(evicted).toEqual([key('bob', 0)]);
    expect(await store.get(key('alice', 0))).toMatchObject({ state: 'completed' });
  });

  it('takes from the largest scope even when the newcomer’s own is smaller', async () => {
    const { store, evicted } = fullStore(3);
    await holds(store, 'alice', 'answered', 'answered');
    await holds(store, 'bob', 'answered');
    await store.acquire(key('bob', 1), 'fp', TTL);
    expect(evicted).toEqual([key('alice', 0)]);
  });

  it('takes from the oldest scope when the largest ones tie', async () => {
    const { store, evicted } = fullStore(2);
    await holds(store, 'alice', 'answered');
    await holds(store, 'bob', 'answered');
    await store.acquire(key('carol', 0), 'fp', TTL);
    expect(evicted).toEqual([key('alice', 0)]);
  });

  it('falls back to the next largest scope when the largest has only running intents', async () => {
    const { store, evicted } = fullStore(9);
    await holds(store, 'alice', 'running', 'running', 'running', 'running');
    await holds(store, 'bob', 'answered', 'answered');
    await holds(store, 'carol', 'answered', 'answered', 'answered');
    expect(await store.acquire(key('dave', 0), 'fp', TTL)).toMatchObject({ acquired: true });
    expect(evicted).toEqual([key('carol', 0)]);
  });

  it('falls back to the newcomer’s own oldest answer when a larger scope has only running intents', async () => {
    const { store, evicted } = fullStore(5);
    await holds(store, 'alice', 'running', 'running', 'running');
    await holds(store, 'bob', 'answered', 'answered');
    expect(await store.acquire(key('bob', 2), 'fp', TTL)).toMatchObject({ acquired: true });
    expect(evicted).toEqual([key('bob', 0)]);
  });

  it('never takes an answer from a scope no larger than the newcomer’s: it is refused instead', async () => {
    const { store, evicted } = fullStore(5);
    await holds(store, 'alice', 'running', 'running', 'running');
    await holds(store, 'bob', 'answered');
    await holds(store, 'carol', 'running');
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
