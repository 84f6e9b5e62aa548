/**
 * How an answer is stored and replayed (PROTOCOL.md § 7.3, § 7.4): bytes that are not
 * UTF-8 come back byte-identical, only the allow-listed headers are kept, a null-body
 * answer stays one, an answer of exactly `maxResponseBytes` is still kept, and an answer
 * over it is streamed on to its first caller with its status and headers, its outcome
 * written only once its body ended (read to its end even when the caller goes away).
 * Records another layer wrote are answered as the protocol says, never as a guess.
 */

import { encodeKey, type IdempotencyStore, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, recordOps, statusRequest, until } from '../../support/server-support.js';

const ID = 'req-0000000001';
const KEY = encodeKey({ user: 'alice', session: '' }, ID);

const bytes = (text: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(text);

/** A body's bytes as hex, so a mismatch reads as text (and compares fast). */
const hex = async (response: Response): Promise<string> => Buffer.from(await response.arrayBuffer()).toString('hex');

/** Bytes that are not UTF-8 (every value 0–255 over and over), longer than two 32 KiB blocks. */
function binary(length: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i += 1) out[i] = (i * 7 + 0xff) % 256;
  return out;
}

const stores: [string, () => IdempotencyStore][] = [
  ['an answer-log store', () => new MemoryStore()],
  ['a store without logs', () => recordOps(new MemoryStore())],
];

/** An answer whose body is `first`, then each of `rest` on the reader's demand, then its end (or `error`). */
function pulled(first: Uint8Array, rest: readonly Uint8Array[], error?: Error): ReadableStream<Uint8Array> {
  const queue = [first, ...rest];
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = queue.shift();
      if (next) controller.enqueue(next);
      else if (error) controller.error(error);
      else controller.close();
    },
  });
}

/** A record written straight into the store, as another layer (runOnce) would have. */
async function settledRecord(store: MemoryStore, write: 'complete' | 'fail', value: string): Promise<void> {
  const claim = await store.acquire(KEY, 'written-elsewhere', 10_000);
  if (!claim.acquired) throw new Error('the claim was refused');
  await store[write](KEY, claim.token, value, 60_000);
}

describe('createIdempotencyHandler: a binary answer', () => {
  it.each(stores)(
    'stores bytes that are not UTF-8 as base64 and replays them byte-identical, on %s',
    async (_name, makeStore) => {
      const payload = binary(2 * 0x8000 + 5);
      const app = chatApp({
        store: makeStore(),
        work: () => new Response(payload.slice(), { headers: { 'Content-Type': 'application/octet-stream' } }),
      });
      const expected = Buffer.from(payload).toString('hex');
      expect(await hex(await app.handle(chatRequest()))).toBe(expected);
      // The record any other server sharing the store reads (PROTOCOL.md § 7.3).
      const record = await app.store.get(KEY);
      expect(record?.state === 'completed' && JSON.parse(record.result)).toMatchObject({
        encoding: 'base64',
        body: Buffer.from(payload).toString('base64'),
      });
      const replay = await app.handle(chatRequest());
      expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
      expect(replay.headers.get('Content-Type')).toBe('application/octet-stream');
      expect(await hex(replay)).toBe(expected);
      const status = await app.handle(statusRequest(ID));
      expect(await hex(status)).toBe(expected);
      expect(app.calls).toHaveLength(1);
    },
  );
});

describe('createIdempotencyHandler: a store without logs keeps what § 7.3 says', () => {
  it('gives the first caller the work’s status and headers, and replays only the allow-listed headers', async () => {
    const app = chatApp({
      store: recordOps(new MemoryStore()),
      work: () =>
        Response.json(
          { answer: 42 },
          { status: 201, headers: { ETag: '"v1"', 'X-Internal-Trace': 'node-7', 'Set-Cookie': 'session=alice' } },
        ),
    });
    const first = await app.handle(chatRequest());
    expect(first.status).toBe(201);
    expect(first.headers.get('X-Internal-Trace')).toBe('node-7');
    expect(await first.json()).toEqual({ answer: 42 });
    const replay = await app.handle(chatRequest());
    expect(replay.status).toBe(201);
    expect(replay.headers.get('Content-Type')).toBe('application/json');
    expect(replay.headers.get('ETag')).toBe('"v1"');
    expect(replay.headers.get('X-Internal-Trace')).toBeNull();
    expect(replay.headers.get('Set-Cookie')).toBeNull();
    expect(await replay.json()).toEqual({ answer: 42 });
  });

  it('answers and replays a 204 without a body as a 204 without a body', async () => {
    const app = chatApp({
      store: recordOps(new MemoryStore()),
      work: () => new Response(null, { status: 204, headers: { ETag: '"gone"' } }),
    });
    const first = await app.handle(chatRequest());
    expect(first.status).toBe(204);
    expect(first.body).toBeNull();
    const replay = await app.handle(chatRequest());
    expect(replay.status).toBe(204);
    expect(replay.body).toBeNull();
    expect(replay.headers.get('ETag')).toBe('"gone"');
    expect(app.calls).toHaveLength(1);
  });

  it('still keeps an answer of exactly maxResponseBytes for replay', async () => {
    const app = chatApp({
      store: recordOps(new MemoryStore()),
      maxResponseBytes: 16,
      work: () => new Response('0123456789abcdef'),
    });
    expect(await (await app.handle(chatRequest())).text()).toBe('0123456789abcdef');
    const replay = await app.handle(chatRequest());
    expect(replay.status).toBe(200);
    expect(await replay.text()).toBe('0123456789abcdef');
  });
});

describe('createIdempotencyHandler: an answer over maxResponseBytes, without logs', () => {
  it('streams on to its first caller with the work’s status and headers', async () => {
    const app = chatApp({
      store: recordOps(new MemoryStore()),
      maxResponseBytes: 8,
      work: () =>
        new Response(pulled(bytes('0123456789'), [bytes(' and more')]), {
          status: 201,
          headers: { 'Content-Type': 'text/plain; charset=utf-8' },
        }),
    });
    const first = await app.handle(chatRequest());
    expect(first.status).toBe(201);
    expect(first.headers.get('Content-Type')).toBe('text/plain; charset=utf-8');
    expect(await first.text()).toBe('0123456789 and more');
    await until(() => app.events.some((event) => event.type === 'completed'));
    const replay = await app.handle(chatRequest());
    expect(replay.status).toBe(410);
    expect(await replay.json()).toMatchObject({ code: 'response-not-replayable', answeredStatus: 201 });
  });

  it('is FAILED when its stream breaks after further chunks went out, and reports the stream’s error', async () => {
    const dropped = new Error('the model connection dropped');
    const app = chatApp({
      store: recordOps(new MemoryStore()),
      maxResponseBytes: 8,
      work: () => new Response(pulled(bytes('0123456789'), [bytes(' more'), bytes(' and more')], dropped)),
    });
    const first = await app.handle(chatRequest());
    await expect(first.text()).rejects.toThrow();
    await until(() => app.events.some((event) => event.type === 'failed'));
    expect(app.events.find((event) => event.type === 'failed')).toMatchObject({ error: dropped });
    const status = await app.handle(statusRequest(ID));
    expect(status.status).toBe(502);
    expect(await status.json()).toMatchObject({ code: 'intent-failed' });
  });

  it('is read to its end when its caller goes away, so it is answered once and never runs again', async () => {
    const app = chatApp({
      store: recordOps(new MemoryStore()),
      maxResponseBytes: 8,
      work: () => new Response(pulled(bytes('0123456789'), [bytes(' one'), bytes(' two'), bytes(' three')])),
    });
    const first = await app.handle(chatRequest());
    await first.body?.cancel();
    await until(() => app.events.some((event) => event.type === 'completed'), 1_000);
    expect((await app.handle(chatRequest())).status).toBe(410);
    expect(app.calls).toHaveLength(1);
  });
});

describe('createIdempotencyHandler: records another layer wrote', () => {
  it.each([
    ['that is null', 'null'],
    ['JSON of something else', '{"answer":42}'],
    [
      'of another version',
      JSON.stringify({ v: 2, replayable: true, status: 200, headers: [], encoding: 'utf8', body: 'hi' }),
    ],
    ['without a status', JSON.stringify({ v: 1, replayable: true, headers: [], encoding: 'utf8', body: 'hi' })],
    [
      'with a status that is not a number',
      JSON.stringify({ v: 1, replayable: true, status: '200', headers: [], encoding: 'utf8', body: 'hi' }),
    ],
    ['without headers', JSON.stringify({ v: 1, replayable: true, status: 200, encoding: 'utf8', body: 'hi' })],
  ])('refuses to replay a completed record %s: a TypeError, not a guess', async (_name, result) => {
    const store = new MemoryStore();
    const app = chatApp({ store: recordOps(store) });
    await settledRecord(store, 'complete', result);
    await expect(app.handle(statusRequest(ID))).rejects.toThrow(
      expect.objectContaining({ name: 'TypeError', message: expect.stringContaining('not an HTTP answer') }),
    );
  });

  it.each([
    ['JSON without a status', '{"name":"Error","message":"boom"}'],
    ['not JSON', 'boom'],
  ])('answers a failed record whose error is %s as a plain 500 intent-failed', async (_name, error) => {
    const store = new MemoryStore();
    const app = chatApp({ store: recordOps(store) });
    await settledRecord(store, 'fail', error);
    const status = await app.handle(statusRequest(ID));
    expect(status.status).toBe(500);
    expect(await status.json()).toMatchObject({ code: 'intent-failed', status: 500, requestId: ID });
  });
});
