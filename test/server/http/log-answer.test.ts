/**
 * Answers from a position (PROTOCOL.md § 14.5) that come from the store rather than the
 * work: the replay of a finished answer and the attach to a live one — their status,
 * their headers (§ 14.3), and the restart of a reader whose position names another
 * generation (the marker first, then the whole answer once).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { attachToLog } from '../../../src/server/http/log-answer.js';
import type { RequestedPosition } from '../../../src/server/http/position.js';
import type { IdempotencyRecord } from '../../../src/server/store/store.js';
import type { LogSlice, StreamStore } from '../../../src/server/store/stream-store.js';
import { chatApp, chatRequest, gate, statusRequest, until } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';
import {
  heldAfterOneEvent,
  parseEvents,
  processingRecord,
  readEvents,
  readRest,
  sseAnswer,
  tokens,
} from '../../support/stream-support.js';

const ID = 'req-0000000001';
const encoder = new TextEncoder();
const decoder = new TextDecoder();

const restartMarker = (generation: number | string) =>
  `event: answer-once.restart\ndata: {"generation":${generation}}\nid: ${generation}.0\n\n`;

/** A finished three-event answer, its text and its generation. */
async function finishedEvents() {
  const app = chatApp({ work: () => sseAnswer(3), flushMs: 1 });
  const fresh = await app.handle(chatRequest());
  const text = await fresh.text();
  await until(() => app.events.some(({ type }) => type === 'completed'));
  return { app, text, generation: Number(fresh.headers.get('X-Idempotent-Generation')) };
}

describe('replaying a finished answer from a position', () => {
  it('restarts a Last-Event-ID of an older generation: the marker, then the whole answer once, head status', async () => {
    const { app, text, generation } = await finishedEvents();
    const replay = await app.handle(chatRequest({ headers: { 'Last-Event-ID': `${generation - 1}.20` } }));
    expect(replay.status).toBe(200);
    expect(replay.headers.get('X-Idempotent-Restarted')).toBe('true');
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(replay.headers.get('X-Idempotent-Generation')).toBe(String(generation));
    expect(await replay.text()).toBe(restartMarker(generation) + text);
    expect(app.calls).toHaveLength(1);
  });

  it('restarts a Last-Event-ID past the end of the finished generation', async () => {
    const { app, text, generation } = await finishedEvents();
    const replay = await app.handle(chatRequest({ headers: { 'Last-Event-ID': `${generation}.${text.length + 1}` } }));
    expect(replay.status).toBe(200);
    expect(replay.headers.get('X-Idempotent-Restarted')).toBe('true');
    expect(await replay.text()).toBe(restartMarker(generation) + text);
  });

  it('resumes a Last-Event-ID inside it with the head’s 200 (not a 206), its generation, not flagged stopped', async () => {
    const { app, text, generation } = await finishedEvents();
    const first = parseEvents(text)[0]?.id ?? '';
    const replay = await app.handle(chatRequest({ headers: { 'Last-Event-ID': first } }));
    expect(replay.status).toBe(200);
    expect(replay.headers.get('Content-Range')).toBeNull();
    expect(replay.headers.get('X-Idempotent-Generation')).toBe(String(generation));
    expect(replay.headers.get('X-Idempotent-Stopped')).toBeNull();
    expect(replay.headers.get('X-Idempotent-Restarted')).toBeNull();
    expect(tokens(parseEvents(await replay.text()))).toEqual(['token 1', 'token 2']);
  });

  it('flags the resumed tail of a stopped answer X-Idempotent-Stopped, ending with the stop marker', async () => {
    const app = chatApp({ work: ({ context }) => sseAnswer(10_000, { delayMs: 5, signal: context.signal }) });
    const fresh = await app.handle(chatRequest());
    const some = await readEvents(fresh, 1);
    const stop = new Request(`http://app.test/api/status/${ID}`, {
      method: 'DELETE',
      headers: { Authorization: 'Bearer alice', Prefer: 'wait=5' },
    });
    expect((await app.handle(stop)).headers.get('X-Idempotent-Stopped')).toBe('true');
    await readRest(some);
    const resumed = await app.handle(chatRequest({ headers: { 'Last-Event-ID': some.events[0]?.id ?? '' } }));
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('X-Idempotent-Stopped')).toBe('true');
    expect(parseEvents(await resumed.text()).at(-1)).toMatchObject({ event: 'answer-once.stopped' });
    expect(app.calls).toHaveLength(1);
  });

  it('answers a position in an answer too large to keep 410 response-not-replayable, as without one', async () => {
    const app = chatApp({ maxResponseBytes: 8, work: () => new Response('longer than eight bytes') });
    const fresh = await app.handle(chatRequest());
    const generation = fresh.headers.get('X-Idempotent-Generation') ?? '';
    expect(await fresh.text()).toBe('longer than eight bytes');
    await until(() => app.events.some(({ type }) => type === 'completed'));
    const replay = await app.handle(chatRequest({ headers: { Range: 'bytes=2-', 'X-Idempotent-Generation': generation } }));
    expect(replay.status).toBe(410);
    expect(await replay.json()).toMatchObject({ code: 'response-not-replayable' });
    expect(app.calls).toHaveLength(1);
  });

  it('restarts a 204 answer for a Range of another generation: 204, no body', async () => {
    const app = chatApp({ work: () => new Response(null, { status: 204 }) });
    expect((await app.handle(chatRequest())).status).toBe(204);
    const replay = await app.handle(chatRequest({ headers: { Range: 'bytes=0-', 'X-Idempotent-Generation': '1' } }));
    expect(replay.status).toBe(204);
    expect(replay.headers.get('X-Idempotent-Restarted')).toBe('true');
    expect(replay.body).toBeNull();
  });
});

describe('attaching to a live answer from a position', () => {
  it('restarts a Last-Event-ID of an older generation: 200, no-store, the marker, then the whole answer once', async () => {
    const go = gate();
    const app = chatApp({ work: () => heldAfterOneEvent(go.promise), flushMs: 1 });
    const fresh = await app.handle(chatRequest());
    const generation = Number(fresh.headers.get('X-Idempotent-Generation'));
    const older = { 'Last-Event-ID': `${generation - 1}.20` };
    // The head and the first event are logged one flush after the handler returned.
    let attached = await app.handle(statusRequest(ID, { headers: older }));
    for (let tries = 0; tries < 200 && !attached.headers.get('X-Idempotent-Attached'); tries += 1) {
      await sleep(5);
      attached = await app.handle(statusRequest(ID, { headers: older }));
    }
    expect(attached.headers.get('X-Idempotent-Attached')).toBe('true');
    expect(attached.status).toBe(200);
    expect(attached.headers.get('Content-Range')).toBeNull();
    expect(attached.headers.get('X-Idempotent-Restarted')).toBe('true');
    expect(attached.headers.get('Cache-Control')).toBe('no-store');
    go.open();
    const [mine, theirs] = await Promise.all([fresh.text(), attached.text()]);
    expect(theirs).toBe(restartMarker(generation) + mine);
    expect(tokens(parseEvents(mine))).toEqual(['first', 'second']);
    expect(app.calls).toHaveLength(1);
  });

  it('replays, never attaches, a finished answer whose log is still kept', async () => {
    const app = chatApp({ work: () => sseAnswer(5, { delayMs: 5 }), flushMs: 1 });
    const text = await (await app.handle(chatRequest())).text();
    await until(() => app.events.some(({ type }) => type === 'completed'));
    const status = await app.handle(statusRequest(ID));
    expect(status.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(status.headers.get('X-Idempotent-Attached')).toBeNull();
    expect(await status.text()).toBe(text);
  });
});

describe('attachToLog: what a snapshot of the store can be attached to', () => {
  const G = 7;
  const NOW = 1_000_000;
  const KEY = 'scope:req-0000000001';
  const context = { requestId: ID, waitedSeconds: undefined, statusRoute: true };
  /** A store that fails every read: whatever a reader is sent first comes from the snapshot. */
  const failing = { read: () => Promise.reject(new Error('store down')) } as unknown as StreamStore;
  const processing = (leaseExpiresAt: number, generation = G): IdempotencyRecord =>
    processingRecord({ leaseExpiresAt, createdAt: NOW, generation });
  /** A plain-text log of `generation` keeping bytes `[offset, offset + data.length)`. */
  const slice = (data: string, offset: number, generation = G): LogSlice => ({
    generation,
    head: JSON.stringify({ v: 1, status: 200, headers: [['content-type', 'text/plain']] }),
    offset,
    length: offset + encoder.encode(data).byteLength,
    data: encoder.encode(data),
  });
  const fromByte = (offset: number): RequestedPosition => ({ by: 'range', generation: G, offset });
  const attach = (record: IdempotencyRecord, log: LogSlice | null, position?: RequestedPosition) =>
    attachToLog(failing, KEY, { record, log }, position, context, 0);

  afterEach(() => {
    vi.useRealTimers();
  });

  it('does not attach to a generation whose lease ends this very millisecond (it has expired)', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    expect(attach(processing(NOW), slice('Once upon', 0))).toBeUndefined();
    expect(attach(processing(NOW + 1), slice('Once upon', 0))?.headers.get('X-Idempotent-Attached')).toBe('true');
  });

  it('does not attach to the log of an older generation (the running one has logged no head yet)', () => {
    expect(attach(processing(Date.now() + 60_000, G + 1), slice('Once upon', 0))).toBeUndefined();
  });

  it('sends the kept bytes from the asked offset of a trimmed log at once, without reading the store again', async () => {
    const response = attach(processing(Date.now() + 60_000), slice('upon a time', 5), fromByte(10));
    expect(response?.status).toBe(206);
    expect(response?.headers.get('Content-Range')).toBe('bytes 10-9007199254740991/*');
    const reader = response!.body!.getReader();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('a time');
    await reader.cancel();
  });
});
