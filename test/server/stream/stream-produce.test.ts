/**
 * `produce` on its own (PROTOCOL.md § 14.2, § 14.8, § 14.10): a work's body fed by hand,
 * a log that records every append, fake timers for the flush windows. What the attempt
 * that runs the work gets, what goes to the log, and what is kept for the record.
 */

import type { LogAppend, LogAppendResult, StreamStore } from 'answer-once/server';
import { describe, expect, it, vi } from 'vitest';
import { Holder } from '../../../src/server/run/holder.js';
import { type ProduceContext, type Production, produce } from '../../../src/server/stream/producer/produce.js';
import { useFakeClock } from '../../support/fake-clock.js';
import { parseEvents, tokens } from '../../support/stream-support.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const FLUSH_MS = 25;

/** A work's body, fed by hand; `cancelled` holds the reasons it was cancelled with. */
function workBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const cancelled: unknown[] = [];
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => {
      controller = c;
    },
    cancel: (reason) => {
      cancelled.push(reason);
    },
  });
  return {
    stream,
    cancelled,
    send: (text: string) => controller.enqueue(encoder.encode(text)),
    end: () => controller.close(),
    fail: (error: unknown) => controller.error(error),
  };
}

/** A log that records every append; `answers` (in order) say how appends go, ok once they run out. */
function recordingLog(answers: Promise<LogAppendResult>[] = []) {
  const appends: LogAppend[] = [];
  let length = 0;
  const store = {
    append: async (_key: string, _token: string, batch: LogAppend): Promise<LogAppendResult> => {
      appends.push(batch);
      const ok: LogAppendResult = { ok: true, length: length + batch.data.byteLength, stopRequested: false };
      const answer = await (answers.shift() ?? ok);
      if (answer.ok) length = answer.length;
      return answer;
    },
  } as unknown as StreamStore;
  return { store, appends };
}

function contextFor(store: StreamStore, overrides: Partial<ProduceContext> = {}) {
  const stop = new AbortController();
  const onFenced = vi.fn();
  const context: ProduceContext = {
    store,
    key: 'key',
    token: 'token',
    flushMs: FLUSH_MS,
    flushBytes: 65_536,
    report: () => undefined,
    onStop: () => undefined,
    stopAt: async () => undefined,
    onFenced,
    leaseMs: 30_000,
    onRenewed: () => undefined,
    holder: new Holder(store, 'key', 'token', 7, {
      fingerprint: 'fp',
      leaseMs: 30_000,
      storeTimeoutMs: 5_000,
      report: () => undefined,
    }),
    generation: 7,
    maxResponseBytes: 1_000,
    maxQueuedBytes: 1_048_576,
    replayHeaders: new Set(['content-type']),
    position: undefined,
    stopSignal: stop.signal,
    ...overrides,
  };
  return { context, stop, onFenced };
}

const sse = (body: ReadableStream<Uint8Array>) => new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
const plain = (body: ReadableStream<Uint8Array>) => new Response(body, { headers: { 'Content-Type': 'text/plain' } });

/** `promise`'s value once the clock ran on a second; throws if it is still pending then. */
async function soon<T>(promise: Promise<T>): Promise<T> {
  let outcome: { value: T } | { error: unknown } | undefined;
  promise.then(
    (value) => (outcome = { value }),
    (error: unknown) => (outcome = { error }),
  );
  await vi.advanceTimersByTimeAsync(1_000);
  if (!outcome) throw new Error('still pending after 1 s');
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/** Sends `parts` down `body`, a flush window after each. */
async function sendFlushed(body: ReturnType<typeof workBody>, ...parts: string[]): Promise<void> {
  for (const part of parts) {
    body.send(part);
    await vi.advanceTimersByTimeAsync(FLUSH_MS);
  }
}

/** Every chunk the attempt's body gives, until it ends. */
async function chunks(response: Response): Promise<Uint8Array[]> {
  const reader = response.body!.getReader();
  const read: Uint8Array[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) read.push(next.value);
  return read;
}

const text = (parts: readonly Uint8Array[]) => parts.map((part) => decoder.decode(part)).join('');

function streaming(production: Production): Extract<Production, { whole: false }> {
  if (production.whole) throw new Error('expected a streamed production');
  return production;
}

function storedBody(produced: Awaited<Extract<Production, { whole: false }>['produced']>): string {
  if (!produced.ok || !produced.stored.replayable) throw new Error('expected a replayable answer');
  return produced.stored.body;
}

/**
 * A production under way: a work's body fed by hand and framed by `frame` (`sse` or
 * `plain`), over a log that records every append, with `overrides` to the context.
 */
async function producing(frame: typeof sse, overrides: Partial<ProduceContext> = {}) {
  const body = workBody();
  const { store, appends } = recordingLog();
  const { context, stop } = contextFor(store, overrides);
  const production = streaming(await produce(frame(body.stream), context));
  return { body, appends, stop, production };
}

useFakeClock();

describe('produce: stops and fences', () => {
  it('stops reading the work’s body on a stop: the answer ends with the stop marker, kept and marked stopped', async () => {
    const { body, stop, production } = await producing(sse);
    const delivered = chunks(production.delivered);
    body.send('data: a\n\n');
    const reason = new DOMException('stopped', 'AbortError');
    stop.abort(reason);
    expect(body.cancelled).toEqual([reason]);
    const produced = await soon(production.produced);
    expect(produced).toMatchObject({ ok: true, stored: { stopped: true } });
    production.settle({ ok: true, fenced: false });
    const got = await soon(delivered);
    expect(got.every((chunk) => chunk.byteLength > 0)).toBe(true); // never an empty chunk
    const events = parseEvents(text(got));
    expect(tokens(events)).toEqual(['a']);
    expect(events.at(-1)).toMatchObject({ event: 'answer-once.stopped' });
    expect(storedBody(produced)).toBe(text(got));
  });

  it('ends a body that streams when the stop was asked before it started', async () => {
    const body = workBody();
    const { store } = recordingLog();
    const { context, stop } = contextFor(store);
    stop.abort(new DOMException('stopped', 'AbortError'));
    const production = streaming(await produce(sse(body.stream), context));
    expect(body.cancelled).toHaveLength(1);
    const produced = await soon(production.produced);
    expect(produced).toMatchObject({ ok: true, stored: { stopped: true } });
    expect(parseEvents(storedBody(produced)).map(({ event }) => event)).toEqual(['answer-once.stopped']);
  });

  it('takes what a stopped work throws before its first byte as the end of its answer, not a broken one', async () => {
    const body = workBody();
    const { store, appends } = recordingLog();
    const { context, stop } = contextFor(store);
    stop.abort(new DOMException('stopped', 'AbortError'));
    body.fail(stop.signal.reason);
    const production = await produce(sse(body.stream), context);
    expect(production).toMatchObject({ whole: true, produced: { ok: true, stored: { stopped: true } } });
    expect(parseEvents(await production.delivered.text()).map(({ event }) => event)).toEqual(['answer-once.stopped']);
    expect(appends).toEqual([]);
  });

  it('after a fenced append: stops reading, aborts the work, and the caller gets no byte more (not even a stop landing then) but the 503 marker', async () => {
    const body = workBody();
    const { store } = recordingLog([Promise.resolve({ ok: false, reason: 'fenced' })]);
    const stop = new AbortController();
    // A stop that lands as the fence does: its marker is this generation's, which lost the intent.
    const onFenced = vi.fn(() => stop.abort(new DOMException('stopped', 'AbortError')));
    const { context } = contextFor(store, { onFenced, stopSignal: stop.signal });
    const production = streaming(await produce(sse(body.stream), context));
    const delivered = chunks(production.delivered);
    body.send('data: a\n\n');
    await vi.advanceTimersByTimeAsync(FLUSH_MS); // the head's append, answered fenced
    expect(onFenced).toHaveBeenCalledTimes(1);
    expect(body.cancelled[0]).toBeInstanceOf(Error);
    await soon(production.produced); // the work's body never ended by itself: reading it stopped
    production.settle({ ok: false, fenced: true });
    const events = parseEvents(text(await soon(delivered)));
    expect(events.map(({ event, data }) => event ?? data)).toEqual(['a', 'answer-once.error']);
    expect(events.at(-1)?.data).toBe('{"code":"intent-failed","status":503}');
  });

  it('once the attempt’s body was ended, gives it nothing more while the work’s body goes on into the record', async () => {
    const { body, production } = await producing(sse);
    const delivered = chunks(production.delivered);
    body.send('data: a\n\n');
    await vi.advanceTimersByTimeAsync(1);
    production.settle({ ok: false, fenced: false }); // e.g. the run timed out
    body.send('data: b\n\n');
    body.end();
    const produced = await soon(production.produced);
    expect(tokens(parseEvents(storedBody(produced)))).toEqual(['a', 'b']);
    const events = parseEvents(text(await soon(delivered)));
    expect(events.map(({ event, data }) => event ?? data)).toEqual(['a', 'answer-once.error']);
  });
});

describe('produce: broken bodies', () => {
  it('a body that breaks before its first byte: a whole, broken production with the work’s error, nothing appended', async () => {
    const body = workBody();
    const { store, appends } = recordingLog();
    const { context } = contextFor(store);
    const error = new Error('model connection reset');
    body.fail(error);
    const production = await produce(sse(body.stream), context);
    expect(production).toMatchObject({ whole: true, produced: { ok: false, error } });
    expect(appends).toEqual([]);
  });

  it('a body that breaks while streaming: broken with the work’s error, every byte read so far in the log', async () => {
    const { body, appends, production } = await producing(plain);
    body.send('once ');
    await vi.advanceTimersByTimeAsync(1);
    body.send('upon');
    await vi.advanceTimersByTimeAsync(1);
    const error = new Error('model connection reset');
    body.fail(error);
    expect(await soon(production.produced)).toEqual({ ok: false, error });
    expect(text(appends.map(({ data }) => data))).toBe('once upon');
  });
});

describe('produce: the log and what is kept', () => {
  it('completes a replayable answer without appending its last batch', async () => {
    const { body, appends, production } = await producing(plain);
    body.send('hello');
    body.end();
    expect(storedBody(await soon(production.produced))).toBe('hello');
    expect(appends).toEqual([]); // the record supersedes the batch
  });

  it('appends nothing after the body ended, even a batch queued behind an append in flight', async () => {
    const body = workBody();
    let land!: (result: LogAppendResult) => void;
    const { store, appends } = recordingLog([new Promise((resolve) => (land = resolve))]);
    const { context } = contextFor(store);
    const production = streaming(await produce(plain(body.stream), context));
    body.send('once ');
    await vi.advanceTimersByTimeAsync(FLUSH_MS); // the head's append, in flight
    body.send('upon');
    body.end();
    await vi.advanceTimersByTimeAsync(1);
    land({ ok: true, length: 5, stopRequested: false });
    expect(storedBody(await soon(production.produced))).toBe('once upon');
    await vi.advanceTimersByTimeAsync(10 * FLUSH_MS);
    expect(text(appends.map(({ data }) => data))).toBe('once ');
  });

  it('keeps an answer of exactly maxResponseBytes for the record, appending without retainBytes', async () => {
    const { body, appends, production } = await producing(plain, { maxResponseBytes: 10 });
    await sendFlushed(body, '01234', '56789');
    body.end();
    expect(storedBody(await soon(production.produced))).toBe('0123456789');
    expect(appends.map((append) => 'retainBytes' in append)).toEqual([false, false]);
  });

  it('past maxResponseBytes: the record is not replayable and the appends from then on carry retainBytes', async () => {
    const { body, appends, production } = await producing(plain, { maxResponseBytes: 10 });
    await sendFlushed(body, '0123456789', '!');
    body.send('tail');
    body.end();
    expect(await soon(production.produced)).toMatchObject({ ok: true, stored: { replayable: false } });
    expect(appends.map(({ retainBytes }) => retainBytes)).toEqual([undefined, 10, 10]);
    expect(text(appends.map(({ data }) => data))).toBe('0123456789!tail'); // not replayable: its last batch is logged
  });

  it('past maxResponseBytes before it streams: every append carries retainBytes', async () => {
    const body = workBody();
    const { store, appends } = recordingLog();
    const { context } = contextFor(store, { maxResponseBytes: 10 });
    body.send('0123456789!'); // there at once, then the body waits
    const production = streaming(await produce(plain(body.stream), context));
    await vi.advanceTimersByTimeAsync(FLUSH_MS);
    await sendFlushed(body, 'more');
    body.end();
    expect(await soon(production.produced)).toMatchObject({ ok: true, stored: { replayable: false } });
    expect(appends.map(({ retainBytes }) => retainBytes)).toEqual([10, 10]);
  });
});
