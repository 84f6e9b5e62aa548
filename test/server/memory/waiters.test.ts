import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MemoryStore } from 'answer-once/server';
import { describe, expect, it, vi } from 'vitest';
import { useFakeClock } from '../../support/fake-clock.js';

const LEASE = 60_000;

/** A store holding one running intent, `k`, leased for a minute on fake timers. */
async function running(): Promise<{ store: MemoryStore; token: string }> {
  const store = new MemoryStore();
  const held = await store.acquire('k', 'fp', LEASE);
  if (!held.acquired) throw new Error('expected to acquire');
  return { store, token: held.token };
}

/** `promise`, and whether it has settled yet. */
function watched<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false;
  void promise.then(() => (settled = true));
  return { promise, settled: () => settled };
}

describe('MemoryStore waits: wake-ups, aborts and what they leave behind', () => {
  useFakeClock({ now: 0 });

  it('answers a wait whose signal already aborted at once, with the record as it is', async () => {
    const { store } = await running();
    const waiting = watched(store.wait('k', LEASE, AbortSignal.abort()));
    await vi.advanceTimersByTimeAsync(0);
    expect(waiting.settled()).toBe(true);
    expect(await waiting.promise).toMatchObject({ state: 'processing' });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('ends an aborted wait with no timer left, and later writes to its key wake nothing', async () => {
    const { store, token } = await running();
    const controller = new AbortController();
    const waiting = store.wait('k', LEASE, controller.signal);
    expect(vi.getTimerCount()).toBe(1);
    controller.abort();
    expect(await waiting).toMatchObject({ state: 'processing' });
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(await store.renew('k', token, LEASE)).toBe('written');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('leaves no timer and no abort listener behind once a write answers the wait', async () => {
    const { store, token } = await running();
    const shutdown = new AbortController(); // one signal shared by many waits, say a server's
    const waiting = store.wait('k', LEASE, shutdown.signal);
    await store.complete('k', token, 'the answer', LEASE);
    expect(await waiting).toMatchObject({ state: 'completed', result: 'the answer' });
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('moves its one timer to the renewed lease’s end when a write does not answer it', async () => {
    const { store, token } = await running();
    const waiting = watched(store.wait('k', 10 * LEASE));
    await vi.advanceTimersByTimeAsync(LEASE / 2);
    await store.renew('k', token, LEASE); // the lease now ends at 1.5 × LEASE
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(LEASE - 1);
    expect(waiting.settled()).toBe(false);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await waiting.promise).toMatchObject({ state: 'processing', leaseExpiresAt: 1.5 * LEASE });
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('MemoryStore waits: memory', () => {
  it('keeps nothing for a settled wait: waits on 10,000 unknown keys leave the heap as it was', async () => {
    // A status route answers polls for any request ID a caller names; what each wait
    // subscribed must go with it, or the store grows without bound though it holds nothing.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const store = new MemoryStore();
    await store.wait('warm-up', 0);
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let n = 0; n < 10_000; n += 1) await store.wait(`unknown-${n}`, LEASE);
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(500_000);
    expect(store.size).toBe(0); // also keeps the store itself alive until after the measurement
  });
});
