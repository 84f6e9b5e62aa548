/**
 * The body of a reader that attached to a live answer (PROTOCOL.md § 14.6, § 14.7): the
 * bytes it was handed, then what the store's log and record say, until the generation
 * ends — the rest of the answer, a restart into the next generation, or the error
 * marker (event streams) / an aborted body (other bodies). The store is scripted: each
 * `read` answers the next snapshot of the script, so each rule is stated exactly.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { IdempotencyRecord } from '../../../src/server/store/store.js';
import type {
  LogPosition,
  LogReadOptions,
  LogSlice,
  LogSnapshot,
  StreamStore,
} from '../../../src/server/store/stream-store.js';
import { followLog, headIsEventStream } from '../../../src/server/stream/log-follow.js';
import { sleep } from '../../support/sleep.js';
import { processingRecord } from '../../support/stream-support.js';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const bytes = (text: string): Uint8Array => encoder.encode(text);

const G = 7;
const NOW = 1_000_000;
const LIVE = NOW + 60_000;
const KEY = 'scope:req-0000000001';
const HEAD = JSON.stringify({ status: 200, headers: [['content-type', 'text/event-stream']] });

const processing = (generation: number | null = G, leaseExpiresAt = LIVE): IdempotencyRecord =>
  // null: a record written without one
  processingRecord({ leaseExpiresAt, createdAt: NOW, ...(generation === null ? {} : { generation }) });
const completed = (stored: object, generation = G): IdempotencyRecord => ({
  state: 'completed',
  fingerprint: 'f',
  result: JSON.stringify({ v: 1, status: 200, headers: [], ...stored }),
  createdAt: NOW,
  runs: 1,
  completedAt: NOW,
  generation,
});
const replayable = (body: string, generation = G) => completed({ replayable: true, encoding: 'utf8', body }, generation);
const notReplayable = (generation = G) => completed({ replayable: false }, generation);
const failed = (status: number): IdempotencyRecord => ({
  state: 'failed',
  fingerprint: 'f',
  error: JSON.stringify({ status }),
  createdAt: NOW,
  runs: 1,
  failedAt: NOW,
  generation: G,
});
/** The log's bytes `[offset, offset + data.length)` of `generation`. */
const slice = (data: string, offset: number, generation = G): LogSlice => ({
  generation,
  head: HEAD,
  offset,
  length: offset + bytes(data).byteLength,
  data: bytes(data),
});

type Step = LogSnapshot | Error | ((from: LogPosition, options: LogReadOptions) => Promise<LogSnapshot>);

/** A store whose `read` answers `steps` in turn (then fails), recording what was asked. */
function scripted(...steps: Step[]) {
  const calls: { from: LogPosition; options: LogReadOptions }[] = [];
  const read = async (_key: string, from: LogPosition, options: LogReadOptions): Promise<LogSnapshot> => {
    calls.push({ from, options });
    const step = steps.shift() ?? new Error('the script ran out');
    if (step instanceof Error) throw step;
    return typeof step === 'function' ? step(from, options) : step;
  };
  return { store: { read } as unknown as StreamStore, calls };
}

/** `promise`, or a rejection when it has not settled within a second (a stalled body). */
function within<T>(promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('stalled')), 1_000);
  });
  return Promise.race([promise, stalled]).finally(() => clearTimeout(timer));
}

/** Reads to the end; every read is bounded, so a body that stalls fails the spec. */
async function drain(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = '';
  for (;;) {
    const next = await within(reader.read());
    if (next.done) return text;
    text += decoder.decode(next.value, { stream: true });
  }
}

const errorEvent = (status: number, code = 'intent-failed') =>
  `event: answer-once.error\ndata: {"code":"${code}","status":${status}}\n\n`;
const restartEvent = (generation: number) =>
  `event: answer-once.restart\ndata: {"generation":${generation}}\nid: ${generation}.0\n\n`;

const follow = (store: StreamStore, offset: number, sse: boolean, first = '', marker?: string) =>
  followLog(
    store,
    KEY,
    { generation: G, offset },
    { sse, first: bytes(first), marker: marker === undefined ? undefined : bytes(marker) },
  );

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] }); // only the clock: the leases above are read against NOW
  vi.setSystemTime(NOW);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('followLog: what an attached reader is sent', () => {
  it('sends the marker it was handed, then the bytes in hand, then the rest of the stored answer', async () => {
    const { store, calls } = scripted({ record: replayable('data: a\n\ndata: b\n\n'), log: null });
    const body = follow(store, 0, true, 'data: a\n\n', restartEvent(G));
    expect(await drain(body)).toBe(`${restartEvent(G)}data: a\n\ndata: b\n\n`);
    expect(calls.map((call) => call.from)).toEqual([{ generation: G, offset: 9 }]); // the marker takes no offset
  });

  it('sends the bytes in hand before it asks the store, so a store that fails after still leaves them delivered', async () => {
    const { store } = scripted(new Error('store down'));
    expect(await drain(follow(store, 0, true, 'data: a\n\n'))).toBe(`data: a\n\n${errorEvent(503)}`);
  });

  it('follows the live log batch by batch from its offset until the answer completes', async () => {
    const { store, calls } = scripted(
      { record: processing(), log: slice('data: b\n\n', 9) },
      { record: processing(), log: slice('', 18) }, // woken with nothing new: wait again
      { record: replayable('data: a\n\ndata: b\n\ndata: c\n\n'), log: null },
    );
    expect(await drain(follow(store, 9, true))).toBe('data: b\n\ndata: c\n\n');
    expect(calls.map((call) => call.from.offset)).toEqual([9, 18, 18]);
  });

  it('answers a record with no log (a processing one, then a completed one not replayable) without breaking', async () => {
    const { store } = scripted(
      { record: processing(), log: null },
      { record: notReplayable(), log: slice('data: c\n\n', 9) },
    );
    expect(await drain(follow(store, 9, true))).toBe('data: c\n\n');
  });

  it('restarts into the next generation of an event stream: the restart marker, then that generation from 0', async () => {
    const { store, calls } = scripted(
      { record: processing(G + 1), log: null },
      { record: replayable('data: again\n\n', G + 1), log: null },
    );
    expect(await drain(follow(store, 9, true))).toBe(`${restartEvent(G + 1)}data: again\n\n`);
    expect(calls.map((call) => call.from)).toEqual([
      { generation: G, offset: 9 },
      { generation: G + 1, offset: 0 },
    ]);
  });

  it('ends an event stream with the 503 marker when the new record carries no generation', async () => {
    const { store } = scripted({ record: processing(null), log: null });
    expect(await drain(follow(store, 9, true))).toBe(errorEvent(503));
  });

  it.each([
    ['the record vanished', { record: null, log: null }, 503],
    ['the store failed', new Error('store down'), 503],
    ['the work failed (a 500 is sent as 502)', { record: failed(500), log: null }, 502],
    ['the work failed with 503', { record: failed(503), log: null }, 503],
  ])('ends an event stream with the error marker when %s', async (_, step, status) => {
    const { store } = scripted(step as Step);
    expect(await drain(follow(store, 9, true))).toBe(errorEvent(status));
  });

  it.each([
    ['the record vanished', { record: null, log: null }],
    ['the store failed', new Error('store down')],
  ])(
    'looks again within its patience when %s: the holder that claims it back gets its readers the answer',
    async (_, step) => {
      const { store, calls } = scripted(step as Step, step as Step, {
        record: replayable('data: a\n\ndata: b\n\n'),
        log: null,
      });
      const body = followLog(store, KEY, { generation: G, offset: 9 }, { sse: true, patienceMs: 10_000 });
      expect(await drain(body)).toBe('data: b\n\n');
      expect(calls).toHaveLength(3);
    },
  );

  it('ends with the 503 marker when the lease ran out with nothing new, without reading again', async () => {
    const { store, calls } = scripted(
      { record: processing(G, NOW), log: slice('', 9) }, // expires right now
      { record: replayable('data: a\n\ndata: late\n\n'), log: null },
    );
    expect(await drain(follow(store, 9, true))).toBe(errorEvent(503));
    expect(calls).toHaveLength(1);
  });
});

describe('followLog: a new claim that may continue the answer (§ 14.12)', () => {
  /** The claim of generation G + 1, continuing G's answer once it appended. */
  const claimed = (continues?: number, leaseExpiresAt = LIVE): IdempotencyRecord => ({
    ...processing(G + 1, leaseExpiresAt),
    ...(continues === undefined ? {} : { continues }),
  });

  it('waits while the claim has not chosen, then follows on without a marker when it continues the answer', async () => {
    const { store, calls } = scripted(
      { record: claimed(), log: slice('', 9) }, // G's log, the claim has not appended yet
      { record: claimed(G), log: slice('data: b\n\n', 9) },
      { record: { ...replayable('data: a\n\ndata: b\n\ndata: c\n\n', G + 1), continues: G }, log: null },
    );
    expect(await drain(follow(store, 9, true))).toBe('data: b\n\ndata: c\n\n');
    expect(calls.map((call) => call.from)).toEqual([
      { generation: G, offset: 9 },
      { generation: G, offset: 9 },
      { generation: G, offset: 18 },
    ]);
  });

  it('restarts once the claim replaced the log with its own generation’s', async () => {
    const { store } = scripted(
      { record: claimed(), log: slice('', 9) },
      { record: claimed(), log: slice('data: new\n\n', 0, G + 1) },
      { record: replayable('data: new\n\n', G + 1), log: null },
    );
    expect(await drain(follow(store, 9, true))).toBe(`${restartEvent(G + 1)}data: new\n\n`);
  });

  it('ends with the 503 marker when the choosing claim’s lease ran out', async () => {
    const { store, calls } = scripted({ record: claimed(undefined, NOW), log: slice('', 9) });
    expect(await drain(follow(store, 9, true))).toBe(errorEvent(503));
    expect(calls).toHaveLength(1);
  });
});

describe('followLog: a reader behind the bytes the log keeps (§ 14.10)', () => {
  const gone = errorEvent(410, 'response-not-replayable');

  it.each([
    ['the live log was trimmed past it', { record: processing(), log: slice('data: c\n\n', 18) }],
    ['the answer completed, not replayable, with no log left', { record: notReplayable(), log: null }],
    ['the answer completed, not replayable, its log trimmed past it', { record: notReplayable(), log: slice('x', 18) }],
    [
      'the answer completed, not replayable, the log kept being another generation’s',
      { record: notReplayable(), log: slice('data: other\n\n', 0, G - 1) },
    ],
  ])('ends with the 410 response-not-replayable marker, never a gap, when %s', async (_, step) => {
    const { store } = scripted(step);
    expect(await drain(follow(store, 9, true))).toBe(gone);
  });
});

describe('followLog: a body that is not an event stream', () => {
  it.each([
    ['the store failed', new Error('store down')],
    ['another generation took over (its bytes are never mixed in)', { record: processing(G + 1), log: null }],
    ['the reader fell behind the log', { record: processing(), log: slice('more', 18) }],
  ])('is aborted after the bytes in hand when %s', async (_, step) => {
    const { store } = scripted(step as Step);
    const reader = follow(store, 5, false, 'hello').getReader();
    expect(decoder.decode((await reader.read()).value)).toBe('hello');
    await expect(reader.read()).rejects.toThrow(/broke off; resend/);
  });
});

describe('followLog: a reader that leaves', () => {
  it('stops its wait on the store and reads no more', async () => {
    let waiting!: (signal: AbortSignal) => void;
    const waited = new Promise<AbortSignal>((resolve) => (waiting = resolve));
    const { store, calls } = scripted(
      (_, { signal }) =>
        new Promise((resolve) => {
          waiting(signal!);
          signal!.addEventListener('abort', () => resolve({ record: processing(), log: slice('', 9) }));
        }),
      { record: processing(), log: slice('', 9) },
      { record: processing(), log: slice('', 9) },
    );
    const reader = follow(store, 9, true).getReader();
    const pending = reader.read();
    const signal = await within(waited);
    await reader.cancel();
    expect(signal.aborted).toBe(true);
    expect(await pending).toEqual({ done: true, value: undefined });
    await sleep(0); // let an errant loop run
    expect(calls).toHaveLength(1);
  });
});

describe('headIsEventStream', () => {
  it.each([
    [[['Content-Type', 'text/event-stream; charset=utf-8']], true],
    [[['content-type', 'text/plain']], false],
    [[['x-other', 'text/event-stream']], false],
    [[], false],
  ] as const)('reads %j as an event stream: %s', (headers, expected) => {
    expect(headIsEventStream(headers)).toBe(expected);
  });
});
