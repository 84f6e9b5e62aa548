/**
 * `LogBatcher` on its own (PROTOCOL.md § 14.2, § 14.9): the holder's appends to the log,
 * against a store that records every append and answers each as told, with fake timers
 * for the flush windows. What reaches the log, when, at which offset, and what the
 * batcher reports back.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  batcherFor,
  bytes,
  FLUSH_MS,
  headLogged,
  held,
  ok,
  recordingLog,
  useBatcherClock,
} from '../../support/log-batcher-rig.js';

useBatcherClock();

describe('when batches go out', () => {
  it('sends a batch flushMs after its first byte, not before, with the bytes pushed meanwhile', async () => {
    const { batcher, appends } = await headLogged();
    await vi.advanceTimersByTimeAsync(100);
    batcher.push(bytes('once '));
    await vi.advanceTimersByTimeAsync(10);
    batcher.push(bytes('upon'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS - 11);
    expect(appends).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(appends.slice(1)).toEqual([{ offset: 0, text: 'once upon', head: undefined, at: FLUSH_MS + 100 + FLUSH_MS }]);
  });

  it('times a batch queued behind an append in flight from its first byte, not its last', async () => {
    const first = held();
    const { store, appends } = recordingLog([first.answer]);
    const { batcher } = batcherFor(store);
    batcher.schedule();
    await vi.advanceTimersByTimeAsync(FLUSH_MS); // the head's append, in flight
    await vi.advanceTimersByTimeAsync(5);
    batcher.push(bytes('a'));
    await vi.advanceTimersByTimeAsync(10);
    batcher.push(bytes('b'));
    await vi.advanceTimersByTimeAsync(5);
    first.land(ok(0));
    await vi.advanceTimersByTimeAsync(FLUSH_MS - 15 - 1);
    expect(appends).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(appends.slice(1)).toEqual([{ offset: 0, text: 'ab', head: undefined, at: FLUSH_MS + 5 + FLUSH_MS }]);
  });

  it('sends a batch at once when it holds exactly flushBytes', async () => {
    const { batcher, appends } = await headLogged([], { flushBytes: 4 });
    batcher.push(bytes('abcd'));
    await vi.advanceTimersByTimeAsync(0);
    expect(appends.slice(1)).toEqual([{ offset: 0, text: 'abcd', head: undefined, at: FLUSH_MS }]);
  });

  it('sends a batch at once when it reaches flushBytes while its timer runs (whichever comes first)', async () => {
    const { batcher, appends } = await headLogged([], { flushBytes: 4 });
    batcher.push(bytes('ab'));
    await vi.advanceTimersByTimeAsync(5);
    batcher.push(bytes('cd'));
    await vi.advanceTimersByTimeAsync(0);
    expect(appends.slice(1)).toEqual([{ offset: 0, text: 'abcd', head: undefined, at: FLUSH_MS + 5 }]);
  });

  it('keeps one append in flight and sends what came meanwhile once it lands, in order', async () => {
    const second = held();
    const { batcher, appends, mostInFlight } = await headLogged([ok(0), second.answer]);
    batcher.push(bytes('once '));
    await vi.advanceTimersByTimeAsync(FLUSH_MS); // in flight
    batcher.push(bytes('upon'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS * 4);
    expect(appends).toHaveLength(2);
    second.land(ok(5));
    await vi.advanceTimersByTimeAsync(FLUSH_MS);
    expect(appends.slice(1).map(({ offset, text }) => [offset, text])).toEqual([
      [0, 'once '],
      [5, 'upon'],
    ]);
    expect(mostInFlight()).toBe(1);
  });
});

describe('what an append answers', () => {
  it('renews the lease with every append that lands and reports a stop the append says was asked', async () => {
    const { batcher, context } = await headLogged([ok(0), ok(3, true)]);
    expect(context.onRenewed).toHaveBeenCalledTimes(1);
    expect(context.onStop).not.toHaveBeenCalled();
    batcher.push(bytes('abc'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS);
    expect(context.onRenewed).toHaveBeenCalledTimes(2);
    expect(context.onStop).toHaveBeenCalledTimes(1);
  });

  it('after fenced: tells the holder and appends nothing more', async () => {
    const { batcher, appends, context } = await headLogged([ok(0), { ok: false, reason: 'fenced' }]);
    batcher.push(bytes('abc'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS);
    expect(context.onFenced).toHaveBeenCalledTimes(1);
    batcher.push(bytes('def'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS * 4);
    await batcher.drain(true);
    expect(appends.map(({ text }) => text)).toEqual(['', 'abc']);
  });

  it.each([
    { reason: 'gone', name: 'after gone: appends nothing more, and does not say fenced' },
    { reason: 'offset', name: 'a first try answered offset: someone else writes this log, so it stops' },
  ] as const)('$name', async ({ reason }) => {
    const { batcher, appends, context } = await headLogged([ok(0), { ok: false, reason }]);
    batcher.push(bytes('abc'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS);
    batcher.push(bytes('def'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS * 4);
    await batcher.drain(true);
    expect(appends.map(({ text }) => text)).toEqual(['', 'abc']);
    expect(context.onFenced).not.toHaveBeenCalled();
  });
});

describe('drain', () => {
  it('with all: sends what is pending now, trying it at most 3 times', async () => {
    const down = new Error('store down');
    const { batcher, appends, context } = await headLogged([ok(0), down, down, down]);
    batcher.push(bytes('abc'));
    await batcher.drain(true);
    expect(appends.slice(1).map(({ offset, text }) => [offset, text])).toEqual([
      [0, 'abc'],
      [0, 'abc'],
      [0, 'abc'],
    ]);
    expect(context.report).toHaveBeenCalledTimes(3);
  });

  it('with all: returns only once the last batch landed, even one that went out at flushBytes as the one before landed', async () => {
    const first = held();
    const second = held();
    const { batcher, appends } = await headLogged([ok(0), first.answer, second.answer], { flushBytes: 4 });
    batcher.push(bytes('abcd')); // in flight at once
    batcher.push(bytes('efgh')); // waits for it
    let drained = false;
    const draining = batcher.drain(true).then(() => (drained = true));
    first.land(ok(4));
    await vi.advanceTimersByTimeAsync(0);
    expect(appends.slice(1).map(({ offset, text }) => [offset, text])).toEqual([
      [0, 'abcd'],
      [4, 'efgh'],
    ]);
    expect(drained).toBe(false);
    second.land(ok(8));
    await draining;
  });

  it('without all: waits for the append in flight, and the batch waiting for its timer does not go out', async () => {
    const first = held();
    const { batcher, appends } = await headLogged([ok(0), first.answer]);
    batcher.push(bytes('abc'));
    await vi.advanceTimersByTimeAsync(FLUSH_MS); // in flight
    let drained = false;
    const draining = batcher.drain(false).then(() => (drained = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(drained).toBe(false);
    first.land(ok(3));
    await draining;
    batcher.push(bytes('def'));
    batcher.push(bytes('ghi'));
    await batcher.drain(false);
    await vi.advanceTimersByTimeAsync(FLUSH_MS * 4);
    expect(appends.map(({ text }) => text)).toEqual(['', 'abc']);
  });
});
