/**
 * `runHeld` on its own (the lease and the outcome's write under `runOnce` and the
 * handler): what each way the write can go returns and reports, how the heartbeat paces
 * its renews, and what a renew that lands while the outcome is being written changes.
 */

import { type IdempotencyEventBody, type IdempotencyStore, MemoryStore, type WriteResult } from 'answer-once/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type HeldRunOptions, runHeld, type WorkOutcome } from '../../../src/server/run/held-run.js';
import { gate, recordOps } from '../../support/server-support.js';

const KEY = 'k';
const ANSWER: WorkOutcome<string> = { kind: 'complete', result: '"answer"', value: 'answer' };

function heldOptions(events: IdempotencyEventBody[], overrides: Partial<HeldRunOptions> = {}): HeldRunOptions {
  return {
    leaseMs: 90,
    heartbeatMs: 30,
    completedTtlMs: 60_000,
    failedTtlMs: 60_000,
    maxRunMs: 60_000,
    maxRuns: 3,
    storeTimeoutMs: 60_000,
    fingerprint: 'fp',
    runs: 1,
    report: (event) => events.push(event),
    ...overrides,
  };
}

/** Claims `KEY` in `store` and runs `work` holding it. */
async function held(
  store: IdempotencyStore,
  events: IdempotencyEventBody[],
  work: (signal: AbortSignal) => Promise<WorkOutcome<string>> = async () => ANSWER,
  overrides: Partial<HeldRunOptions> = {},
) {
  const claim = await store.acquire(KEY, 'fp', 90);
  if (!claim.acquired) throw new Error('the spec’s own claim failed');
  return runHeld(store, KEY, claim.token, work, () => ANSWER, heldOptions(events, overrides));
}

const types = (events: IdempotencyEventBody[]) => events.map((event) => event.type);

/** What is behind a {@link vanishing} store now, and `flush()`: an empty store in its place (a flushed Redis). */
interface Behind {
  store: MemoryStore;
  flush(): MemoryStore;
}

/** A store whose record can vanish: every operation goes to `behind.store`, `complete` to `complete`. */
function vanishing(complete: (behind: Behind, ...args: Parameters<IdempotencyStore['complete']>) => Promise<WriteResult>) {
  const behind: Behind = {
    store: new MemoryStore(),
    flush() {
      behind.store = new MemoryStore();
      return behind.store;
    },
  };
  const store: IdempotencyStore = { ...recordOps(() => behind.store), complete: (...args) => complete(behind, ...args) };
  return { store, behind };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('runHeld: how the outcome’s write went', () => {
  it('says stored and reports completed when the write lands', async () => {
    const events: IdempotencyEventBody[] = [];
    const store = new MemoryStore();
    expect(await held(store, events)).toEqual({ outcome: ANSWER, write: 'stored' });
    expect(types(events)).toEqual(['completed']);
    expect(await store.get(KEY)).toMatchObject({ state: 'completed', result: '"answer"' });
  });

  it('claims a vanished record again and writes once more: stored, after record-lost (reclaimed)', async () => {
    const events: IdempotencyEventBody[] = [];
    const { store: flushedOnce, behind } = vanishing(async (inner, ...args) => {
      if (events.length > 0) return inner.store.complete(...args);
      inner.flush(); // a flushed Redis: everything is gone
      return 'gone';
    });
    expect(await held(flushedOnce, events)).toMatchObject({ write: 'stored' });
    expect(events).toEqual([
      { type: 'record-lost', key: KEY, operation: 'complete', reclaimed: true },
      { type: 'completed', key: KEY },
    ]);
    expect(await behind.store.get(KEY)).toMatchObject({ state: 'completed', result: '"answer"' });
  });

  it('says lost, reports record-lost (not reclaimed) and stores nothing when another worker claimed the vanished record first', async () => {
    const events: IdempotencyEventBody[] = [];
    const { store, behind } = vanishing(async (inner, ...args) => {
      if (events.length > 0) return inner.store.complete(...args);
      await inner.flush().acquire(KEY, 'fp', 60_000); // another worker, quicker than our claim
      return 'gone';
    });
    expect(await held(store, events)).toMatchObject({ write: 'lost' });
    expect(events).toEqual([{ type: 'record-lost', key: KEY, operation: 'complete', reclaimed: false }]);
    expect(await behind.store.get(KEY)).toMatchObject({ state: 'processing' }); // the other worker's, untouched
  });

  it('says lost and reports no completed when the record vanishes again before the second write', async () => {
    const events: IdempotencyEventBody[] = [];
    const { store } = vanishing(async (inner) => {
      inner.flush(); // flushed at every write
      return 'gone';
    });
    expect(await held(store, events)).toMatchObject({ write: 'lost' });
    expect(events).toEqual([{ type: 'record-lost', key: KEY, operation: 'complete', reclaimed: true }]);
  });

  it('says store-error, reporting each try, when the write keeps failing until the lease would lapse', async () => {
    const events: IdempotencyEventBody[] = [];
    const reset = new Error('connection reset');
    let tries = 0;
    const store = recordOps(new MemoryStore(), { complete: () => ((tries += 1), Promise.reject(reset)) });
    expect(await held(store, events)).toMatchObject({ write: 'store-error' });
    expect(tries).toBeGreaterThan(1); // a transient failure is tried again while the lease holds
    expect(events).toEqual(Array(tries).fill({ type: 'store-error', key: KEY, operation: 'complete', error: reset }));
  });

  it('says store-error after one try when the store says no retry will cure it', async () => {
    const events: IdempotencyEventBody[] = [];
    const denied = Object.assign(new Error('permission denied'), { code: 'store-failed' });
    const store = recordOps(new MemoryStore(), { complete: () => Promise.reject(denied) });
    expect(await held(store, events)).toMatchObject({ write: 'store-error' });
    expect(events).toEqual([{ type: 'store-error', key: KEY, operation: 'complete', error: denied }]);
  });

  it('rethrows a work that rejects, writes nothing and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const events: IdempotencyEventBody[] = [];
    const store = new MemoryStore();
    const broken = new RangeError('the work’s own wrapper broke');
    const running = held(store, events, () => Promise.reject(broken)).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1);
    expect(await running).toBe(broken);
    expect(vi.getTimerCount()).toBe(0);
    expect(await store.get(KEY)).toMatchObject({ state: 'processing' });
    expect(events).toEqual([]);
  });
});

describe('runHeld: the heartbeat', () => {
  it('keeps at most one renew in flight: a hanging renew is not joined by more', async () => {
    vi.useFakeTimers();
    const events: IdempotencyEventBody[] = [];
    let renews = 0;
    const store = recordOps(new MemoryStore(), { renew: () => ((renews += 1), new Promise(() => undefined)) });
    const done = gate();
    const running = held(store, events, () => done.promise.then(() => ANSWER));
    await vi.advanceTimersByTimeAsync(5 * 30 + 1);
    expect(renews).toBe(1);
    done.open();
    expect(await running).toMatchObject({ write: 'stored' });
  });

  it('skips a beat while another renewal is younger than leaseMs − 2 × heartbeatMs, and renews once it is that old', async () => {
    vi.useFakeTimers();
    const events: IdempotencyEventBody[] = [];
    let renews = 0;
    const inner = new MemoryStore();
    const store = recordOps(inner, { renew: (...args) => ((renews += 1), inner.renew(...args)) });
    let renewedAt = Date.now();
    const done = gate();
    const running = held(store, events, () => done.promise.then(() => ANSWER), { renewedAt: () => renewedAt });
    await vi.advanceTimersByTimeAsync(30); // first beat: the renewal is 30 ms old, 90 − 2 × 30 = 30: not fresh
    expect(renews).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    renewedAt = Date.now(); // an append renewed it
    await vi.advanceTimersByTimeAsync(29); // second beat: 29 ms old, fresh: skipped
    expect(renews).toBe(1);
    await vi.advanceTimersByTimeAsync(30); // third beat: 59 ms old
    expect(renews).toBe(2);
    done.open();
    expect(await running).toMatchObject({ write: 'stored' });
  });

  it.each([
    ['fails', () => Promise.reject(new Error('connection reset'))],
    ['answers fenced', async () => 'fenced' as const],
  ])('lets the write decide when a renew during a slow write %s: no store-error, no lease-lost', async (_, renew) => {
    vi.useFakeTimers();
    const events: IdempotencyEventBody[] = [];
    const inner = new MemoryStore();
    const slow = gate();
    let writing = false;
    const store = recordOps(inner, {
      renew: (...args) => (writing ? renew() : inner.renew(...args)),
      complete: async (...args) => {
        writing = true;
        await slow.promise;
        return inner.complete(...args);
      },
    });
    const running = held(store, events);
    await vi.advanceTimersByTimeAsync(4 * 30 + 1); // four beats while the write hangs
    slow.open();
    expect(await running).toMatchObject({ write: 'stored' });
    expect(types(events)).toEqual(['completed']);
  });
});
