/**
 * The outcome's write when the store blips (`runHeld`, through `runOnce`): a transient
 * failure as the work ends is tried again while the lease holds, so the work is not run
 * a second time; a permanent one is not.
 */

import { type IdempotencyStore, MemoryStore, runOnce } from 'answer-once/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { recordOps } from '../../support/server-support.js';

afterEach(() => {
  vi.useRealTimers();
});

/** An error as a networked store throws it: transient (`store-unavailable`) or permanent (`store-failed`). */
const storeError = (code: 'store-unavailable' | 'store-failed') => Object.assign(new Error(`the store: ${code}`), { code });

/**
 * `store` whose `complete` throws `code` the first `failures` times (every time unless
 * told), and the count of `complete` calls; `overrides` replace more operations.
 */
function failingComplete(
  store: MemoryStore,
  code: 'store-unavailable' | 'store-failed',
  failures = Number.POSITIVE_INFINITY,
  overrides: Partial<IdempotencyStore> = {},
): { ops: IdempotencyStore; completes: () => number } {
  let completes = 0;
  const ops = recordOps(store, {
    ...overrides,
    complete: async (...args) => {
      completes += 1;
      if (completes <= failures) throw storeError(code);
      return store.complete(...args);
    },
  });
  return { ops, completes: () => completes };
}

describe('runOnce: writing the outcome through a store blip', () => {
  it('stores the answer once the store is back, within the lease: the work ran once and a resend replays it', async () => {
    const store = new MemoryStore();
    const { ops: blipping, completes } = failingComplete(store, 'store-unavailable', 2);
    let runs = 0;
    const work = async () => ((runs += 1), 'answer');
    const options = { leaseMs: 2_000, heartbeatMs: 500 };
    expect(await runOnce(blipping, 'k', work, options)).toEqual({ value: 'answer', replayed: false });
    expect(completes()).toBe(3);
    expect(await store.get('k')).toMatchObject({ state: 'completed' });
    expect(await runOnce(blipping, 'k', work, options)).toEqual({ value: 'answer', replayed: true });
    expect(runs).toBe(1);
  });

  it('does not try again a write the store says no retry will cure', async () => {
    const store = new MemoryStore();
    const { ops: broken, completes } = failingComplete(store, 'store-failed');
    await runOnce(broken, 'k', async () => 'answer', { leaseMs: 2_000, heartbeatMs: 500 }).catch(() => undefined);
    expect(completes()).toBe(1);
  });

  it('gives up once the lease it holds would lapse, leaving the intent to a resend', async () => {
    const store = new MemoryStore();
    const { ops: down, completes } = failingComplete(store, 'store-unavailable', Number.POSITIVE_INFINITY, {
      renew: async () => {
        throw storeError('store-unavailable');
      },
    });
    // On a fake clock the backoff's pauses last what they ask, not what a loaded machine gives them.
    vi.useFakeTimers();
    const started = Date.now();
    let settled = false;
    const running = runOnce(down, 'k', async () => 'answer', { leaseMs: 600, heartbeatMs: 150 })
      .catch(() => undefined)
      .finally(() => (settled = true));
    for (let step = 0; step < 100 && !settled; step += 1) await vi.advanceTimersByTimeAsync(10);
    await running;
    expect(Date.now() - started).toBeLessThan(600);
    expect(completes()).toBeGreaterThan(1);
    expect(await store.get('k')).toMatchObject({ state: 'processing' });
  });
});
