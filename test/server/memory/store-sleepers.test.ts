/**
 * MemoryStore's sleepers — `wait`, `read` with `waitMs`, `watchStop` — on fake timers:
 * each ends exactly at its deadline from one timer (never a poll), rejects a bad timeout
 * by name, and answers only for the generation it asked about.
 */

import { MemoryStore } from 'answer-once/server';
import { describe, expect, it, vi } from 'vitest';
import { useFakeClock } from '../../support/fake-clock.js';

const bytes = (value: string): Uint8Array => new TextEncoder().encode(value);

/** `promise`, and whether it has settled yet (a mutant may never settle it: never awaited blind). */
function tracked<T>(promise: Promise<T>): { readonly promise: Promise<T>; settled: () => boolean } {
  let done = false;
  promise.then(
    () => (done = true),
    () => (done = true),
  );
  return { promise, settled: () => done };
}

async function claim(store: MemoryStore, key: string, leaseMs: number) {
  const result = await store.acquire(key, 'fp', leaseMs);
  if (!result.acquired) throw new Error(`expected to acquire ${key}`);
  return result;
}

describe('MemoryStore sleepers', () => {
  useFakeClock({ now: 0 });

  it('rejects a read whose waitMs is not a number ≥ 0, naming it', async () => {
    const store = new MemoryStore();
    await expect(store.read('k', null, { waitMs: -1 })).rejects.toThrow(/read\(\) needs a waitMs ≥ 0, got -1/);
    await expect(store.read('k', null, { waitMs: Number.NaN })).rejects.toBeInstanceOf(TypeError);
  });

  it('rejects a watchStop whose timeoutMs is not a number ≥ 0, naming it', async () => {
    const store = new MemoryStore();
    const { token } = await claim(store, 'k', 60_000);
    await expect(store.watchStop('k', token, -1)).rejects.toThrow(/watchStop\(\) needs a timeoutMs ≥ 0, got -1/);
    await expect(store.watchStop('k', token, Number.NaN)).rejects.toBeInstanceOf(TypeError);
  });

  it('answers a zero-timeout wait and watchStop at once: a look, not a sleep', async () => {
    const store = new MemoryStore();
    const { token } = await claim(store, 'k', 60_000);
    const waiting = tracked(store.wait('k', 0));
    const watching = tracked(store.watchStop('k', token, 0));
    await vi.advanceTimersByTimeAsync(0);
    expect(waiting.settled() && watching.settled()).toBe(true);
    expect(await waiting.promise).toMatchObject({ state: 'processing', token });
    expect(await watching.promise).toBe(false);
  });

  it('times a wait out exactly at timeoutMs, with the live record', async () => {
    const store = new MemoryStore();
    await claim(store, 'k', 60_000);
    const waiting = tracked(store.wait('k', 50));
    await vi.advanceTimersByTimeAsync(49);
    expect(waiting.settled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(waiting.settled()).toBe(true);
    expect(await waiting.promise).toMatchObject({ state: 'processing' });
  });

  it('sleeps a watchStop on one timer set for its deadline, then answers false', async () => {
    const store = new MemoryStore();
    const { token } = await claim(store, 'k', 60_000);
    const watching = tracked(store.watchStop('k', token, 5_000));
    await vi.advanceTimersToNextTimerAsync();
    expect(Date.now()).toBe(5_000);
    expect(watching.settled()).toBe(true);
    expect(await watching.promise).toBe(false);
  });

  it('sleeps a reader with nothing new on one timer set for the lease deadline', async () => {
    const store = new MemoryStore();
    const { generation } = await claim(store, 'k', 1_000);
    const reading = tracked(store.read('k', { generation: generation ?? 0, offset: 0 }, { waitMs: 60_000 }));
    await vi.advanceTimersToNextTimerAsync();
    expect(Date.now()).toBe(1_000);
    expect(reading.settled()).toBe(true);
    expect(await reading.promise).toMatchObject({ record: { state: 'processing', leaseExpiresAt: 1_000 }, log: null });
  });

  it('keeps a reader of a taken-over intent waiting for the new attempt’s bytes, never the dead one’s', async () => {
    const store = new MemoryStore();
    const dead = await claim(store, 'k', 100);
    await store.append('k', dead.token, { offset: 0, data: bytes('stale'), head: 'old' });
    vi.setSystemTime(200);
    const next = await claim(store, 'k', 10_000);
    expect(next).toMatchObject({ takeover: true });

    const reading = tracked(store.read('k', null, { waitMs: 5_000 }));
    await vi.advanceTimersByTimeAsync(10);
    expect(reading.settled()).toBe(false);
    await store.append('k', next.token, { offset: 0, data: bytes('fresh'), head: 'new' });
    const { log } = await reading.promise;
    expect(log).toMatchObject({ generation: next.generation, head: 'new', length: 5 });
    expect(new TextDecoder().decode(log?.data)).toBe('fresh');
  });

  it('answers a watchStop false for a key nobody holds, and for a token that lost the intent', async () => {
    const store = new MemoryStore();
    expect(await store.watchStop('nobody', 'some-token', 1_000)).toBe(false);

    const zombie = await claim(store, 'k', 100);
    vi.setSystemTime(200);
    await claim(store, 'k', 10_000);
    expect(await store.stop('k')).toBe('stopping'); // meant for the successor
    expect(await store.watchStop('k', zombie.token, 1_000)).toBe(false);
  });

  it('still reports a stop already asked to a watchStop that ends because the store closed or the signal aborted', async () => {
    const store = new MemoryStore();
    const { token } = await claim(store, 'k', 60_000);
    await store.stop('k');
    expect(await store.watchStop('k', token, 1_000, AbortSignal.abort())).toBe(true);
    await store.close();
    expect(await store.watchStop('k', token, 1_000)).toBe(true);
    expect(await store.watchStop('nobody', 'some-token', 1_000)).toBe(false);
  });
});
