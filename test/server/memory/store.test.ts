import { MemoryStore, StoreUnavailableError } from 'answer-once/server';
import { describeStepStoreContract, describeStoreContract, describeStreamStoreContract } from 'answer-once/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';

describeStoreContract('MemoryStore', () => new MemoryStore());
describeStreamStoreContract('MemoryStore', () => new MemoryStore());
describeStepStoreContract('MemoryStore', () => new MemoryStore());

describe('MemoryStore', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires records on its injected clock, without any background timer', async () => {
    let now = 1_000;
    const store = new MemoryStore({ now: () => now });
    const held = await store.acquire('k', 'fp', 100);
    if (!held.acquired) throw new Error('expected to acquire');
    await store.complete('k', held.token, 'answer', 500);
    now += 499;
    expect(await store.get('k')).toMatchObject({ state: 'completed', completedAt: 1_000 });
    now += 1;
    expect(await store.get('k')).toBeNull();
    expect(store.size).toBe(0);
  });

  it('forgets an abandoned PROCESSING record abandonedTtlMs after its lease ended', async () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now, abandonedTtlMs: 1_000 });
    await store.acquire('k', 'fp', 100);
    now = 1_099;
    expect(await store.get('k')).toMatchObject({ state: 'processing' });
    now = 1_100;
    expect(await store.get('k')).toBeNull();
  });

  it('evicts expired, then the oldest answered records when full, never a running one', async () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now, maxEntries: 3 });
    const running = await store.acquire('running', 'fp', 10_000);
    const done = await store.acquire('done', 'fp', 10_000);
    if (!running.acquired || !done.acquired) throw new Error('expected to acquire');
    await store.complete('done', done.token, 'answer', 10_000);
    await store.acquire('third', 'fp', 10_000);
    await store.acquire('fourth', 'fp', 10_000); // evicts 'done', the only answered record
    expect(await store.get('done')).toBeNull();
    expect(await store.get('running')).toMatchObject({ state: 'processing' });
    expect(store.size).toBe(3);
    await expect(store.acquire('fifth', 'fp', 10_000)).rejects.toBeInstanceOf(StoreUnavailableError);
    now = 10_001; // every lease has expired: the records are evictable again
    expect(await store.acquire('fifth', 'fp', 10_000)).toMatchObject({ acquired: true });
  });

  it('tells the readers and waiters of an intent at once when it is evicted to make room', async () => {
    let now = 0;
    const store = new MemoryStore({ now: () => now, maxEntries: 1 });
    await store.acquire('abandoned', 'fp', 60_000);
    const reading = store.read('abandoned', null, { waitMs: 120_000 });
    const waiting = store.wait('abandoned', 120_000);
    // Its worker died: on the store's clock the lease lapsed, before any timer of theirs fired.
    now = 60_001;
    await store.acquire('newcomer', 'fp', 1_000); // the store is full: the abandoned record goes
    const late = new Promise((resolve) => setTimeout(() => resolve('still waiting'), 500));
    expect(await Promise.race([reading, late])).toEqual({ record: null, log: null });
    expect(await Promise.race([waiting, late])).toBeNull();
  });

  it('wakes a waiter at the lease deadline from one timer, not by polling', async () => {
    vi.useFakeTimers({ now: 0 });
    const store = new MemoryStore();
    await store.acquire('k', 'fp', 1_000);
    let settled = false;
    const waiting = store.wait('k', 60_000).then((record) => {
      settled = true;
      return record;
    });
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await waiting).toMatchObject({ state: 'processing', leaseExpiresAt: 1_000 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('waits out a lease longer than a timer can hold (2³¹−1 ms) without spinning', async () => {
    vi.useFakeTimers({ now: 0 });
    const day = 86_400_000;
    const store = new MemoryStore();
    const held = await store.acquire('k', 'fp', 40 * day);
    if (!held.acquired) throw new Error('expected to acquire');
    const waiting = store.wait('k', 60 * day);
    await vi.advanceTimersByTimeAsync(30 * day); // two timer spans, a handful of wake-ups
    await store.complete('k', held.token, 'the answer', day);
    expect(await waiting).toMatchObject({ state: 'completed', result: 'the answer' });
  });

  it('rejects a wait whose timeout is not a number ≥ 0, naming it', async () => {
    const store = new MemoryStore();
    await expect(store.wait('k', Number.NaN)).rejects.toThrow(/timeoutMs ≥ 0, got NaN/);
  });

  it('settles pending waits on close', async () => {
    const store = new MemoryStore();
    await store.acquire('k', 'fp', 60_000);
    const waiting = store.wait('k', 60_000);
    await store.close();
    expect(await waiting).toMatchObject({ state: 'processing' });
  });

  it('names the bad option', () => {
    expect(() => new MemoryStore({ maxEntries: 0 })).toThrow(/`maxEntries`/);
    expect(() => new MemoryStore({ abandonedTtlMs: Number.NaN })).toThrow(/`abandonedTtlMs`/);
    expect(() => new MemoryStore({ now: 5 as never })).toThrow(/`now`/);
    expect(() => new MemoryStore({ onEvent: 'log' as never })).toThrow(/`onEvent`/);
    // Options that are not an object are named too; undefined means the defaults.
    expect(() => new MemoryStore(null as never)).toThrow(/`MemoryStore options`/);
    expect(() => new MemoryStore(5 as never)).toThrow(/`MemoryStore options`/);
    expect(() => new MemoryStore(undefined)).not.toThrow();
  });
});
