/**
 * `StreamedRun`'s stop watch on its own (PROTOCOL.md § 14.8): a store whose `watchStop`
 * the spec answers by hand, fake timers for the flush window and the watch's turns. The
 * watch starts a flush window after the intent was held, waits turn after turn while the
 * intent is held, ends with the run, and costs nothing to an answer done sooner.
 */

import type { StreamStore } from 'answer-once/server';
import { describe, expect, it, vi } from 'vitest';
import { Holder } from '../../../src/server/run/holder.js';
import { StreamedRun } from '../../../src/server/stream/run.js';
import { useFakeClock } from '../../support/fake-clock.js';

const FLUSH_MS = 25;
/** The longest turn the watch asks of the store. */
const TURN_MS = 60_000;
const COMPLETE = { kind: 'complete', result: '{}', value: new Response('') } as const;

interface Turn {
  readonly timeoutMs: number;
  readonly signal: AbortSignal | undefined;
  answer(stopped: boolean): void;
}

/** A store whose `watchStop` calls the spec answers (or that answer `false` when their timeout passes, ignoring the signal). */
function watchedStore(options: { timesOut?: boolean } = {}) {
  const turns: Turn[] = [];
  const store = {
    watchStop: (_key: string, _token: string, timeoutMs: number, signal?: AbortSignal) =>
      new Promise<boolean>((resolve) => {
        turns.push({ timeoutMs, signal, answer: resolve });
        if (options.timesOut) setTimeout(() => resolve(false), timeoutMs);
      }),
  } as unknown as StreamStore;
  return { store, turns };
}

function runOn(store: StreamStore): StreamedRun {
  const holder = new Holder(store, 'key', 'token', 7, {
    fingerprint: 'fp',
    leaseMs: 30_000,
    storeTimeoutMs: 5_000,
    report: () => undefined,
  });
  return new StreamedRun(
    store,
    'key',
    holder,
    7,
    { position: undefined, runs: 1 },
    {
      leaseMs: 30_000,
      flushMs: FLUSH_MS,
      flushBytes: 65_536,
      maxResponseBytes: 1_000,
      maxQueuedBytes: 1_048_576,
      replayHeaders: new Set(['content-type']),
      report: () => undefined,
    },
  );
}

useFakeClock();

describe('StreamedRun: the stop watch', () => {
  it('never asks the store when the run ended within the first flush window', async () => {
    const { store, turns } = watchedStore();
    const run = runOn(store);
    await vi.advanceTimersByTimeAsync(FLUSH_MS - 1);
    run.settle(COMPLETE, false);
    await vi.advanceTimersByTimeAsync(10 * FLUSH_MS);
    expect(turns).toHaveLength(0);
  });

  it('waits turn after turn while the intent is held, and aborts the work on a stop seen in a later turn', async () => {
    const { store, turns } = watchedStore({ timesOut: true });
    const run = runOn(store);
    const work = run.signal(new AbortController().signal);
    await vi.advanceTimersByTimeAsync(FLUSH_MS);
    expect(turns).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(TURN_MS); // the first turn timed out: nothing was asked
    expect(turns).toHaveLength(2);
    expect(work.aborted).toBe(false);
    turns[1]?.answer(true);
    await vi.advanceTimersByTimeAsync(0);
    expect(run.stopped).toBe(true);
    expect(work.reason).toMatchObject({ name: 'AbortError' });
    run.dispose();
  });

  it('takes a turn that lasted half its timeout for a timeout (the store may cut it short), and goes on', async () => {
    const { store, turns } = watchedStore();
    const run = runOn(store);
    await vi.advanceTimersByTimeAsync(FLUSH_MS);
    await vi.advanceTimersByTimeAsync(TURN_MS / 2);
    turns[0]?.answer(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(turns).toHaveLength(2);
    run.dispose();
  });

  it('ends with a turn that answered at once (the intent is not held any more)', async () => {
    const { store, turns } = watchedStore();
    const run = runOn(store);
    await vi.advanceTimersByTimeAsync(FLUSH_MS);
    turns[0]?.answer(false);
    await vi.advanceTimersByTimeAsync(TURN_MS);
    expect(turns).toHaveLength(1);
    run.dispose();
  });

  it('takes no turn more once the run ended, even from a store that ignores the signal and times out', async () => {
    const { store, turns } = watchedStore({ timesOut: true });
    const run = runOn(store);
    await vi.advanceTimersByTimeAsync(FLUSH_MS);
    expect(turns).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(TURN_MS / 2);
    run.settle(COMPLETE, false);
    expect(turns[0]?.signal?.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(2 * TURN_MS);
    expect(turns).toHaveLength(1);
  });
});

describe('StreamedRun: the work’s signal', () => {
  it('starts aborted, with the lease’s reason, when the lease was already lost', () => {
    const lease = new AbortController();
    const lost = new Error('lease lost');
    lease.abort(lost);
    const run = runOn(watchedStore().store);
    const work = run.signal(lease.signal);
    expect(work.aborted).toBe(true);
    expect(work.reason).toBe(lost);
    run.dispose();
  });
});
