/**
 * The lease a running work holds (`runHeld`, through `runOnce`): what a renew that finds
 * another holder or no record does to the work, and what is left running afterwards.
 */

import { type IdempotencyEvent, type IdempotencyStore, LeaseLostError, MemoryStore, runOnce } from 'answer-once/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gate, recordOps } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';

/** A work that runs until its signal aborts, then `lingerMs` more (a model call slow to stop), and says why it stopped. */
function untilAborted(lingerMs = 0) {
  let reason: unknown;
  const work = ({ signal }: { signal: AbortSignal }) =>
    new Promise<string>((resolve) => {
      signal.addEventListener('abort', () => {
        reason = signal.reason;
        setTimeout(() => resolve('stopped'), lingerMs);
      });
    });
  return { work, reason: () => reason };
}

describe('runOnce: the lease while the work runs', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('aborts the work when a renew finds another holder, says lease-lost, and renews no more', async () => {
    const store = new MemoryStore();
    const calls = { renew: 0, acquire: 0 };
    const takenOver = recordOps(store, {
      acquire: (...args) => ((calls.acquire += 1), store.acquire(...args)),
      renew: async () => ((calls.renew += 1), 'fenced'),
    });
    const events: IdempotencyEvent[] = [];
    const { work, reason } = untilAborted(150);
    const running = runOnce(takenOver, 'k', work, { leaseMs: 90, heartbeatMs: 30, onEvent: (e) => events.push(e) });
    await vi.waitFor(() => expect(reason()).toBeInstanceOf(LeaseLostError), { timeout: 2_000 });
    const renewsAtLoss = calls.renew;
    await running.catch(() => undefined);
    expect(calls.renew).toBe(renewsAtLoss); // the heartbeat stopped with the lease, not when the work ended
    expect(calls.acquire).toBe(1); // a fenced renew is final: nothing is claimed again
    expect(events.map((e) => e.type)).toContain('lease-lost');
    expect(events.map((e) => e.type)).not.toContain('record-lost');
  });

  it.each([
    ['claims it again and lets the work go on', false],
    ['aborts the work when another worker claimed it first', true],
  ])('when a renew finds the record vanished (a flushed Redis), %s', async (_, othersFirst) => {
    let inner = new MemoryStore();
    let flushed = false;
    let raced = false;
    let renews = 0;
    const flushing: IdempotencyStore = {
      acquire: async (...args) => {
        if (flushed && othersFirst && !raced) {
          raced = true; // between our renew and our claim, someone else was quicker
          await inner.acquire('k', 'another worker', 60_000);
        }
        return inner.acquire(...args);
      },
      renew: async (...args) => {
        renews += 1;
        if (!flushed) {
          flushed = true;
          inner = new MemoryStore(); // everything is gone
        }
        return inner.renew(...args);
      },
      complete: (...args) => inner.complete(...args),
      fail: (...args) => inner.fail(...args),
      get: (...args) => inner.get(...args),
      wait: (...args) => inner.wait(...args),
    };
    const events: IdempotencyEvent[] = [];
    let aborted: boolean | undefined;
    const running = runOnce(
      flushing,
      'k',
      async ({ signal }) => {
        await sleep(300);
        aborted = signal.aborted;
        return 'answer';
      },
      { leaseMs: 90, heartbeatMs: 30, onEvent: (e) => events.push(e) },
    );
    await running.catch(() => undefined);
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'record-lost', operation: 'renew', reclaimed: !othersFirst }),
    );
    expect(aborted).toBe(othersFirst);
    expect(events.some((e) => e.type === 'lease-lost')).toBe(othersFirst);
    // Lost for good: the work is told at that renew, not one beat later, and renewing ends.
    if (othersFirst) expect(renews).toBe(1);
    else expect(renews).toBeGreaterThan(1);
  });

  it('stores the answer under the token a renew’s claim of a vanished record got, when the work ends while that claim is in flight', async () => {
    vi.useFakeTimers();
    let inner = new MemoryStore();
    let acquires = 0;
    const claimLands = gate();
    const completeLands = gate();
    const flushing: IdempotencyStore = {
      ...recordOps(inner),
      acquire: async (...args) => {
        acquires += 1;
        if (acquires === 2) await claimLands.promise; // the renew's claim again, slow to land
        return inner.acquire(...args);
      },
      renew: async (...args) => {
        if (acquires > 1) return inner.renew(...args);
        inner = new MemoryStore(); // a flushed Redis: everything is gone
        return 'gone';
      },
      complete: async (...args) => {
        await completeLands.promise;
        return inner.complete(...args);
      },
      get: (...args) => inner.get(...args),
    };
    const events: IdempotencyEvent[] = [];
    const workEnds = gate();
    const running = runOnce(flushing, 'k', () => workEnds.promise.then(() => 'answer'), {
      leaseMs: 90,
      heartbeatMs: 30,
      onEvent: (e) => events.push(e),
    }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(31); // the first beat finds the record gone and claims it again
    expect(acquires).toBe(2);
    workEnds.open();
    await vi.advanceTimersByTimeAsync(0);
    claimLands.open(); // our own claim holds the intent now
    await vi.advanceTimersByTimeAsync(0);
    completeLands.open();
    await vi.advanceTimersByTimeAsync(0);
    expect(await running).toEqual({ value: 'answer', replayed: false }); // not fenced by its own claim
    expect(await inner.get('k')).toMatchObject({ state: 'completed', result: '"answer"' });
    expect(events.map((e) => e.type)).not.toContain('fenced');
  });

  it('aborts the work when the caller’s signal aborts, and still when the lease is lost while the caller holds one', async () => {
    const caller = new AbortController();
    const stopped = untilAborted();
    const started = gate();
    const work = (context: { signal: AbortSignal }) => (started.open(), stopped.work(context));
    const running = runOnce(new MemoryStore(), 'a', work, { signal: caller.signal });
    await started.promise;
    const gaveUp = new Error('the caller gave up');
    caller.abort(gaveUp);
    await running;
    expect(stopped.reason()).toBe(gaveUp);

    const lost = untilAborted();
    const takenOver = recordOps(new MemoryStore(), { renew: async () => 'fenced' });
    const fenced = runOnce(takenOver, 'b', lost.work, {
      leaseMs: 90,
      heartbeatMs: 30,
      signal: new AbortController().signal,
    });
    await fenced.catch(() => undefined);
    expect(lost.reason()).toBeInstanceOf(LeaseLostError);
  });

  it('leaves no timer behind once the work settled, answered or thrown', async () => {
    vi.useFakeTimers();
    const store = new MemoryStore();
    const answered = runOnce(store, 'a', async () => 'answer', { maxRunMs: 60_000 });
    await vi.advanceTimersByTimeAsync(1);
    await answered;
    const thrown = runOnce(store, 'b', async () => Promise.reject(new RangeError('model overloaded')), { maxRunMs: 60_000 });
    const caught = thrown.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1);
    expect(await caught).toBeInstanceOf(RangeError);
    expect(vi.getTimerCount()).toBe(0);
  });
});
