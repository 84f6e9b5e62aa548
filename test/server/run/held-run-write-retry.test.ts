/**
 * The outcome's write when the store blips (`runHeld`, through `runOnce`): a transient
 * failure as the work ends is tried again while the lease holds, so the work is not run
 * a second time; a permanent one is not.
 */

import { MemoryStore, runOnce } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { recordOps } from '../../support/server-support.js';

/** An error as a networked store throws it: transient (`store-unavailable`) or permanent (`store-failed`). */
const storeError = (code: 'store-unavailable' | 'store-failed') => Object.assign(new Error(`the store: ${code}`), { code });

describe('runOnce: writing the outcome through a store blip', () => {
  it('stores the answer once the store is back, within the lease: the work ran once and a resend replays it', async () => {
    const store = new MemoryStore();
    let failures = 2;
    let completes = 0;
    const blipping = recordOps(store, {
      complete: async (...args) => {
        completes += 1;
        if (failures > 0) {
          failures -= 1;
          throw storeError('store-unavailable');
        }
        return store.complete(...args);
      },
    });
    let runs = 0;
    const work = async () => ((runs += 1), 'answer');
    const options = { leaseMs: 2_000, heartbeatMs: 500 };
    expect(await runOnce(blipping, 'k', work, options)).toEqual({ value: 'answer', replayed: false });
    expect(completes).toBe(3);
    expect(await store.get('k')).toMatchObject({ state: 'completed' });
    expect(await runOnce(blipping, 'k', work, options)).toEqual({ value: 'answer', replayed: true });
    expect(runs).toBe(1);
  });

  it('does not try again a write the store says no retry will cure', async () => {
    const store = new MemoryStore();
    let completes = 0;
    const broken = recordOps(store, {
      complete: async () => {
        completes += 1;
        throw storeError('store-failed');
      },
    });
    await runOnce(broken, 'k', async () => 'answer', { leaseMs: 2_000, heartbeatMs: 500 }).catch(() => undefined);
    expect(completes).toBe(1);
  });

  it('gives up once the lease it holds would lapse, leaving the intent to a resend', async () => {
    const store = new MemoryStore();
    let completes = 0;
    const down = recordOps(store, {
      renew: async () => {
        throw storeError('store-unavailable');
      },
      complete: async () => {
        completes += 1;
        throw storeError('store-unavailable');
      },
    });
    const started = Date.now();
    await runOnce(down, 'k', async () => 'answer', { leaseMs: 600, heartbeatMs: 150 }).catch(() => undefined);
    expect(Date.now() - started).toBeLessThan(600);
    expect(completes).toBeGreaterThan(1);
    expect(await store.get('k')).toMatchObject({ state: 'processing' });
  });
});
