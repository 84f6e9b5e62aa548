/**
 * What `runOnce` tells its caller beyond the value: the options it refuses (naming the
 * option, before touching the store), the events of each step, what `waitMs: 0` means,
 * and the errors of a work that ran out of time or whose failure was fenced or not stored.
 */

import {
  type IdempotencyEvent,
  type IdempotencyStore,
  IntentInProgressError,
  LeaseLostError,
  MemoryStore,
  type RunOnceOptions,
  runOnce,
  StoreUnavailableError,
} from 'answer-once/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordOps } from '../../support/server-support.js';

/** A listener and what it heard. */
function listen(): { events: IdempotencyEvent[]; onEvent: (event: IdempotencyEvent) => void } {
  const events: IdempotencyEvent[] = [];
  return { events, onEvent: (event) => events.push(event) };
}

/** A store where `k` is held by a live worker elsewhere. */
async function heldElsewhere(): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.acquire('k', '', 60_000);
  return store;
}

describe('runOnce: the options it refuses', () => {
  it.each([
    ['options that are not an object', 5, /`runOnce\(\) options`/],
    ['a codec without decode()', { codec: { encode: String } }, /`codec`/],
    ['a codec without encode()', { codec: { decode: String } }, /`codec`/],
    ['an onEvent that is not a function', { onEvent: 'log' }, /`onEvent`/],
    ['a requestId that is not a string', { requestId: 42 }, /`requestId`/],
    ['a fingerprint that is not a string', { fingerprint: 42 }, /`fingerprint`/],
  ])('refuses %s with a TypeError naming it, and neither runs the work nor claims the key', async (_, options, name) => {
    const store = new MemoryStore();
    let runs = 0;
    const running = runOnce(store, 'k', async () => ++runs, options as RunOnceOptions<number>);
    await expect(running).rejects.toThrow(TypeError);
    await expect(running).rejects.toThrow(name);
    expect(runs).toBe(0);
    expect(await store.get('k')).toBeNull();
  });
});

describe('runOnce: the events of each step', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reports acquired, completed and answered (ran) for the run, replayed and answered (replayed) for a redelivery, all under the requestId', async () => {
    const store = new MemoryStore();
    const first = listen();
    await runOnce(store, 'orders:7', async () => 'summary', { onEvent: first.onEvent, requestId: 'order-7' });
    expect(first.events).toEqual([
      { type: 'acquired', key: 'orders:7', takeover: false, retry: false, requestId: 'order-7' },
      { type: 'completed', key: 'orders:7', requestId: 'order-7' },
      { type: 'answered', outcome: 'ran', firstByteMs: expect.any(Number), requestId: 'order-7' },
    ]);
    const again = listen();
    expect(await runOnce(store, 'orders:7', async () => 'other', { onEvent: again.onEvent })).toEqual({
      value: 'summary',
      replayed: true,
    });
    expect(again.events).toEqual([
      { type: 'replayed', key: 'orders:7', requestId: 'orders:7' },
      { type: 'answered', outcome: 'replayed', avoided: true, firstByteMs: expect.any(Number), requestId: 'orders:7' },
    ]);
  });

  it('with waitMs: 0 reports in-progress and throws IntentInProgressError without waiting, however coarse the clock', async () => {
    vi.useFakeTimers({ toFake: ['Date'] }); // the clock stands still: no time passes between the deadline and the check
    const store = await heldElsewhere();
    let waits = 0;
    const counted = recordOps(store, {
      wait: async () => {
        waits += 1;
        throw new Error('waitMs: 0 never waits');
      },
    });
    const { events, onEvent } = listen();
    await expect(runOnce(counted, 'k', async () => 1, { waitMs: 0, onEvent })).rejects.toBeInstanceOf(IntentInProgressError);
    expect(waits).toBe(0);
    expect(events).toEqual([
      { type: 'in-progress', key: 'k', requestId: 'k' },
      { type: 'answered', outcome: 'in_progress', firstByteMs: expect.any(Number), requestId: 'k' },
    ]);
  });

  it.each([
    ['acquire', { acquire: () => Promise.reject(new Error('ECONNREFUSED')) }],
    ['wait', { wait: () => Promise.reject(new Error('ECONNRESET')) }],
  ] as const)(
    'reports a failed %s as a store-error naming it, and throws StoreUnavailableError',
    async (operation, broken) => {
      const store = recordOps(await heldElsewhere(), broken);
      const { events, onEvent } = listen();
      let runs = 0;
      await expect(runOnce(store, 'k', async () => ++runs, { onEvent })).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(events).toContainEqual(expect.objectContaining({ type: 'store-error', key: 'k', operation }));
      expect(runs).toBe(0);
    },
  );
});

describe('runOnce: a work that fails, runs out of time, or is fenced', () => {
  /** A work that never settles, and the signal it was handed. */
  function hangs() {
    let signal: AbortSignal | undefined;
    const work = ({ signal: given }: { signal: AbortSignal }) => {
      signal = given;
      return new Promise<string>(() => undefined);
    };
    return { work, signal: () => signal };
  }

  it('past maxRunMs aborts the work, stores FAILED, throws RunTimeoutError, and a redelivery runs again as a retry', async () => {
    const store = new MemoryStore();
    const { events, onEvent } = listen();
    const { work, signal } = hangs();
    const error = await runOnce(store, 'k', work, { maxRunMs: 50, onEvent }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'RunTimeoutError' });
    expect(signal()?.reason).toBe(error);
    expect(events).toContainEqual({ type: 'run-timeout', key: 'k', requestId: 'k', maxRunMs: 50 });
    expect(events).toContainEqual({ type: 'failed', key: 'k', requestId: 'k', error });
    expect(await store.get('k')).toMatchObject({ state: 'failed' });
    expect(await runOnce(store, 'k', async ({ retry }) => ({ retry }))).toEqual({ value: { retry: true }, replayed: false });
  });

  it.each([
    ['threw', async () => Promise.reject(new RangeError('model overloaded')), 'RangeError'],
    ['ran past maxRunMs', hangs().work, 'RunTimeoutError'],
  ])(
    'when a work that %s cannot have its failure stored, reports a store-error of fail and rethrows',
    async (_, work, name) => {
      const store = recordOps(new MemoryStore(), { fail: () => Promise.reject(new Error('ECONNRESET')) });
      const { events, onEvent } = listen();
      // The failure is tried again within one store deadline, then given up.
      await expect(runOnce(store, 'k', work, { maxRunMs: 50, storeTimeoutMs: 300, onEvent })).rejects.toMatchObject({
        name,
      });
      expect(events).toContainEqual(expect.objectContaining({ type: 'store-error', key: 'k', operation: 'fail' }));
    },
  );

  it('throws LeaseLostError carrying the work’s own error when its failure was fenced out by a successor', async () => {
    const store: IdempotencyStore = recordOps(new MemoryStore(), { fail: async () => 'fenced' });
    const failure = new RangeError('model overloaded');
    const { events, onEvent } = listen();
    const error = await runOnce(store, 'k', () => Promise.reject(failure), { onEvent }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect((error as LeaseLostError).cause).toBe(failure);
    expect(events).toContainEqual({ type: 'fenced', key: 'k', requestId: 'k', operation: 'fail' });
  });

  it('throws LeaseLostError without a cause when the fenced-out work had succeeded', async () => {
    const store = recordOps(new MemoryStore(), { complete: async () => 'fenced' });
    const error = await runOnce(store, 'k', async () => 'answer').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(LeaseLostError);
    expect((error as LeaseLostError).cause).toBeUndefined();
  });
});
