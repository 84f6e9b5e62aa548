import {
  FingerprintMismatchError,
  type IdempotencyEvent,
  type IdempotencyStore,
  IntentInProgressError,
  LeaseLostError,
  MemoryStore,
  type RunOnceResult,
  runOnce,
  StoreUnavailableError,
} from 'answer-once/server';
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { recordOps } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';

/** Work that takes `ms`, then answers `answer(runs)`; `runs()` says how often it started. */
function slowWork<T>(ms: number, answer: (runs: number) => T) {
  let runs = 0;
  const work = async () => {
    runs += 1;
    await sleep(ms);
    return answer(runs);
  };
  return { work, runs: () => runs };
}

describe('runOnce', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs the work once per key and replays its value to every later delivery', async () => {
    const store = new MemoryStore();
    let runs = 0;
    const work = async () => ({ summary: `summary #${++runs}` });
    const first = await runOnce(store, 'order-1', work);
    const again = await runOnce(store, 'order-1', work);
    expect(first).toEqual({ value: { summary: 'summary #1' }, replayed: false });
    expect(again).toEqual({ value: { summary: 'summary #1' }, replayed: true });
    expect(runs).toBe(1);
  });

  it('lets a redelivery wait for the live worker and share its value', async () => {
    const store = new MemoryStore();
    const { work, runs } = slowWork(100, () => 'answer');
    const results = await Promise.all([runOnce(store, 'm', work), runOnce(store, 'm', work), runOnce(store, 'm', work)]);
    expect(results.map((result) => result.value)).toEqual(['answer', 'answer', 'answer']);
    expect(results.filter((result) => result.replayed)).toHaveLength(2);
    expect(runs()).toBe(1);
  });

  it('renews the lease while the work runs 3× longer than it, so nobody runs it twice', async () => {
    // Fake timers: each heartbeat beats on time however loaded the machine, as the lease assumes.
    vi.useFakeTimers();
    const store = new MemoryStore();
    const { work, runs } = slowWork(300, (started) => started);
    const first = runOnce(store, 'slow', work, { leaseMs: 100 });
    await vi.advanceTimersByTimeAsync(150);
    const second = runOnce(store, 'slow', work, { leaseMs: 100 });
    await vi.advanceTimersByTimeAsync(300);
    expect(await first).toEqual({ value: 1, replayed: false });
    expect(await second).toEqual({ value: 1, replayed: true });
    expect(runs()).toBe(1);
  });

  it('stops renewing once the work settles', async () => {
    const store = new MemoryStore();
    let renews = 0;
    const counting: IdempotencyStore = recordOps(store, {
      renew: (key: string, token: string, leaseMs: number) => {
        renews += 1;
        return store.renew(key, token, leaseMs);
      },
    });
    vi.useFakeTimers(); // a starved machine skips beats: on a fake clock the count is exact
    const running = runOnce(counting, 'k', () => sleep(200).then(() => 'done'), { leaseMs: 60, heartbeatMs: 20 });
    await vi.advanceTimersByTimeAsync(200);
    await running;
    const afterwards = renews;
    expect(afterwards).toBeGreaterThanOrEqual(3);
    await vi.advanceTimersByTimeAsync(100);
    expect(renews).toBe(afterwards);
  });

  it('stores a thrown error as FAILED, rethrows it, and runs again on the next delivery', async () => {
    const store = new MemoryStore();
    let runs = 0;
    const work = async ({ retry }: { retry: boolean }) => {
      runs += 1;
      if (!retry) throw new RangeError('model overloaded');
      return 'second time lucky';
    };
    await expect(runOnce(store, 'k', work)).rejects.toThrow(RangeError);
    expect(await store.get('k')).toMatchObject({ state: 'failed' });
    expect(await runOnce(store, 'k', work)).toEqual({ value: 'second time lucky', replayed: false });
    expect(runs).toBe(2);
  });

  it('takes over the key of a worker that died and says so', async () => {
    const store = new MemoryStore();
    await store.acquire('k', '', 50);
    await sleep(60);
    const seen: boolean[] = [];
    const result = await runOnce(store, 'k', async ({ takeover }) => {
      seen.push(takeover);
      return 'rescued';
    });
    expect(result).toEqual({ value: 'rescued', replayed: false });
    expect(seen).toEqual([true]);
  });

  it('rejects a zombie’s result after a takeover: LeaseLostError, a fenced event, the successor’s value kept', async () => {
    const store = new MemoryStore();
    const partitioned: IdempotencyStore = recordOps(store, {
      renew: () => Promise.reject(new Error('ETIMEDOUT')),
    });
    const events: IdempotencyEvent[] = [];
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    // The zombie answers only after its successor did, however slow the box.
    const zombie = runOnce(partitioned, 'k', () => woken.then(() => 'zombie'), {
      leaseMs: 100,
      onEvent: (event) => events.push(event),
    });
    await sleep(150);
    const successor = await runOnce(store, 'k', async () => 'successor', { leaseMs: 100 });
    expect(successor).toEqual({ value: 'successor', replayed: false });
    wake();
    await expect(zombie).rejects.toBeInstanceOf(LeaseLostError);
    expect(events).toContainEqual({ type: 'fenced', key: 'k', requestId: 'k', operation: 'complete' });
    expect(events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'renew' }));
    expect(await runOnce(store, 'k', async () => 'third')).toEqual({ value: 'successor', replayed: true });
  });

  it('refuses the same key with another fingerprint', async () => {
    const store = new MemoryStore();
    await runOnce(store, 'k', async () => 1, { fingerprint: 'a' });
    await expect(runOnce(store, 'k', async () => 2, { fingerprint: 'b' })).rejects.toBeInstanceOf(FingerprintMismatchError);
  });

  it('gives up waiting for a live holder after waitMs', async () => {
    const store = new MemoryStore();
    let started = false;
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const holder = runOnce(store, 'k', () => ((started = true), finished.then(() => 'x')));
    while (!started) await sleep(1);
    const start = Date.now();
    await expect(runOnce(store, 'k', async () => 'y', { waitMs: 100 })).rejects.toBeInstanceOf(IntentInProgressError);
    const waited = Date.now() - start;
    expect(waited).toBeGreaterThanOrEqual(99);
    expect(waited).toBeLessThan(5_000); // waitMs, not the 30 s default
    finish();
    expect(await holder).toEqual({ value: 'x', replayed: false });
  });

  it('never runs the work when the store is down', async () => {
    let runs = 0;
    const down: IdempotencyStore = recordOps(new MemoryStore(), {
      acquire: () => Promise.reject(new Error('ECONNREFUSED')),
    });
    await expect(runOnce(down, 'k', async () => ++runs)).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(runs).toBe(0);
  });

  it('uses the given codec to store and revive values', async () => {
    const store = new MemoryStore();
    const codec = { encode: (date: Date) => date.toISOString(), decode: (text: string) => new Date(text) };
    await runOnce(store, 'k', async () => new Date(0), { codec });
    const { value } = await runOnce(store, 'k', async () => new Date(1), { codec });
    expect(value).toBeInstanceOf(Date);
    expect(value.getTime()).toBe(0);
  });

  it('infers the value type from the work and the codec', async () => {
    const store = new MemoryStore();
    const result = await runOnce(store, 'typed', async () => ({ summary: 'text', tokens: 3 }));
    expectTypeOf(result).toEqualTypeOf<RunOnceResult<{ summary: string; tokens: number }>>();
    const codec = { encode: (date: Date) => date.toISOString(), decode: (text: string) => new Date(text) };
    expectTypeOf(runOnce(store, 'dated', async () => new Date(), { codec })).resolves.toEqualTypeOf<RunOnceResult<Date>>();
    // @ts-expect-error a codec of another type does not fit the work's value
    await runOnce(store, 'wrong', async () => 1, { codec }).catch(() => {});
  });

  it('names the bad option', async () => {
    const store = new MemoryStore();
    await expect(runOnce(store, 'k', async () => 1, { waitMs: -1 })).rejects.toThrow(/`waitMs`/);
    await expect(runOnce(store, 'k', async () => 1, { leaseMs: 100, heartbeatMs: 100 })).rejects.toThrow(/`heartbeatMs`/);
  });
});
