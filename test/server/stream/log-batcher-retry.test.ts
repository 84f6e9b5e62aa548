/**
 * `LogBatcher` when an append fails (PROTOCOL.md § 14.2): the same bytes are sent again,
 * alone and at the same offset, a flush window later; what a retry that landed after all
 * means. The rig is in ./log-batcher-rig.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  batcherFor,
  bytes,
  FLUSH_MS,
  HEAD,
  headLogged,
  ok,
  recordingLog,
  useBatcherClock,
} from '../../support/log-batcher-rig.js';

useBatcherClock();

describe('a failed append', () => {
  it('reports a store-error and sends the same bytes again alone, at the same offset, then goes on', async () => {
    const failure = new Error('store down');
    const { batcher, appends, context } = await headLogged([ok(0), failure]);
    batcher.push(bytes('abc'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS); // throws
    expect(context.report).toHaveBeenCalledWith({ type: 'store-error', key: 'key', operation: 'append', error: failure });
    batcher.push(bytes('def'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS * 4);
    expect(appends.slice(1).map(({ offset, text }) => [offset, text])).toEqual([
      [0, 'abc'],
      [0, 'abc'],
      [3, 'def'],
    ]);
  });

  it('retries the head’s failed append with the head', async () => {
    const { store, appends } = recordingLog([new Error('store down')]);
    const { batcher } = batcherFor(store);
    batcher.push(bytes('abc'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS * 4);
    expect(appends.map(({ offset, text, head }) => [offset, text, head])).toEqual([
      [0, 'abc', HEAD],
      [0, 'abc', HEAD],
    ]);
  });

  it('a retry answered offset: the first try landed, so it goes on after those bytes, without the head', async () => {
    const { store, appends, mostInFlight } = recordingLog([new Error('answer lost'), { ok: false, reason: 'offset' }]);
    const { batcher, context } = batcherFor(store);
    batcher.push(bytes('abc'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS * 2); // the head's batch, then its retry
    batcher.push(bytes('def'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS);
    expect(appends.map(({ offset, text, head }) => [offset, text, head])).toEqual([
      [0, 'abc', HEAD],
      [0, 'abc', HEAD],
      [3, 'def', undefined],
    ]);
    await vi.advanceTimersByTimeAsync(FLUSH_MS * 4);
    expect(appends).toHaveLength(3);
    expect(context.onFenced).not.toHaveBeenCalled();
    expect(mostInFlight()).toBe(1);
  });

  it.each(['fenced', 'gone'] as const)(
    'a retry answered %s: the batcher stops for good (a fenced one says so)',
    async (reason) => {
      const { batcher, appends, context } = await headLogged([ok(0), new Error('answer lost'), { ok: false, reason }]);
      batcher.push(bytes('abc'));
      await vi.advanceTimersByTimeAsync(FLUSH_MS * 2); // the batch, then its retry
      batcher.push(bytes('def'));
      await vi.advanceTimersByTimeAsync(FLUSH_MS * 4);
      expect(appends.slice(1).map(({ offset, text }) => [offset, text])).toEqual([
        [0, 'abc'],
        [0, 'abc'],
      ]);
      expect(context.onFenced).toHaveBeenCalledTimes(reason === 'fenced' ? 1 : 0);
    },
  );

  it('waits flushMs before each retry, even with flushBytes pending: a store that is down is not hammered', async () => {
    const down = new Error('store down');
    const { batcher, appends } = await headLogged([ok(0), down, down, down], { flushBytes: 4 });
    batcher.push(bytes('abcd')); // flushBytes: goes at once, and fails
    await vi.advanceTimersByTimeAsync(0);
    batcher.push(bytes('efgh')); // flushBytes pending again while the retry waits
    await vi.advanceTimersByTimeAsync(FLUSH_MS * 5);
    const tries = appends.slice(1).map(({ text, at }) => [text, at]);
    expect(tries.slice(0, 4)).toEqual([
      ['abcd', FLUSH_MS],
      ['abcd', FLUSH_MS * 2],
      ['abcd', FLUSH_MS * 3],
      ['abcd', FLUSH_MS * 4],
    ]);
    expect(tries[4]).toEqual(['efgh', FLUSH_MS * 4]);
  });
});
