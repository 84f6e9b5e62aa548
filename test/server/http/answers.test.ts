/**
 * The answers built from a record (PROTOCOL.md § 6.1, § 7.3, § 8, § 9): a replay names
 * its generation only when the store keeps one and says "stopped" only for a stopped
 * answer; each problem's `title` says what happened; a lapsed holder's 503 says why in
 * its `detail`, from the very millisecond its lease ends.
 */

import { encodeKey, type IdempotencyRecord, MemoryStore } from 'answer-once/server';
import { describe, expect, it, vi } from 'vitest';
import { chatApp, chatRequest, gate, recordOps, statusRequest, until } from '../../support/server-support.js';

const ID = 'req-0000000001';
const KEY = encodeKey({ user: 'alice', session: '' }, ID);

/** A record as a store without answer logs holds it: no `generation`. */
function withoutGeneration(record: IdempotencyRecord | null): IdempotencyRecord | null {
  if (record === null) return null;
  const { generation: _generation, ...rest } = record;
  return rest as IdempotencyRecord;
}

describe('createIdempotencyHandler: the replay’s protocol headers', () => {
  it('names the record’s generation on a replay from an answer-log store (§ 14.3)', async () => {
    const store = new MemoryStore();
    const app = chatApp({ store });
    await app.handle(chatRequest());
    const record = await store.get(KEY);
    expect(record?.generation).toBeTypeOf('number');
    for (const replay of [await app.handle(chatRequest()), await app.handle(statusRequest(ID))]) {
      expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
      expect(replay.headers.get('X-Idempotent-Generation')).toBe(String(record?.generation));
    }
  });

  it('names no generation when the store’s record has none', async () => {
    const inner = new MemoryStore();
    const app = chatApp({ store: recordOps(inner, { get: async (key) => withoutGeneration(await inner.get(key)) }) });
    await app.handle(chatRequest());
    const replay = await app.handle(statusRequest(ID));
    expect(replay.status).toBe(200);
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(replay.headers.get('X-Idempotent-Generation')).toBeNull();
  });

  it('does not mark the replay of an answer that was never stopped as stopped', async () => {
    const app = chatApp();
    await app.handle(chatRequest());
    const replay = await app.handle(chatRequest());
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(replay.headers.get('X-Idempotent-Stopped')).toBeNull();
  });
});

describe('createIdempotencyHandler: replays of one record', () => {
  it('gives every replay the same bytes and headers, whole or from a position, however many were read before', async () => {
    const app = chatApp();
    const first = await app.handle(chatRequest());
    const bytes = new Uint8Array(await first.arrayBuffer());
    const generation = first.headers.get('X-Idempotent-Generation') ?? '';
    for (let n = 0; n < 3; n += 1) {
      const replay = await app.handle(chatRequest());
      expect(new Uint8Array(await replay.arrayBuffer())).toEqual(bytes);
      expect(replay.headers.get('Content-Type')).toBe(first.headers.get('Content-Type'));
      expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
      expect(replay.headers.get('Content-Range')).toBeNull();
      const tail = await app.handle(chatRequest({ headers: { Range: 'bytes=5-', 'X-Idempotent-Generation': generation } }));
      expect(tail.status).toBe(206);
      expect(tail.headers.get('Content-Range')).toBe(`bytes 5-${bytes.byteLength - 1}/${bytes.byteLength}`);
      expect(new Uint8Array(await tail.arrayBuffer())).toEqual(bytes.slice(5));
    }
    expect(app.calls).toHaveLength(1);
  });
});

/** Expects `response` to be the problem `code` with `status`, its title saying `says`. */
async function expectTitled(response: Response, status: number, code: string, says: string): Promise<void> {
  expect(response.status).toBe(status);
  expect(await response.json()).toMatchObject({ code, title: expect.stringContaining(says) });
}

describe('createIdempotencyHandler: each problem’s title says what happened', () => {
  it('410: the intent was answered, but too large to keep for replay', async () => {
    const app = chatApp({ maxResponseBytes: 4, work: () => new Response('longer than four bytes') });
    await (await app.handle(chatRequest())).text();
    const replay = await app.handle(chatRequest());
    await expectTitled(replay, 410, 'response-not-replayable', 'too large');
  });

  it('409: another attempt of the intent is still running', async () => {
    const release = gate();
    const app = chatApp({
      store: recordOps(new MemoryStore()),
      inProgressStatus: 409,
      work: () => release.promise.then(() => undefined),
    });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    const second = await app.handle(chatRequest());
    await expectTitled(second, 409, 'request-in-progress', 'still running');
    release.open();
    expect((await first).status).toBe(200);
  });

  it('5xx intent-failed: resend the same request with the same ID', async () => {
    const app = chatApp({ work: () => new Response('down', { status: 503 }) });
    const failed = await app.handle(chatRequest());
    await expectTitled(failed, 503, 'intent-failed', 'resend the same request with the same ID');
  });

  it('404: no intent with this ID is known', async () => {
    const status = await chatApp().handle(statusRequest('req-never-sent'));
    await expectTitled(status, 404, 'intent-not-found', 'no intent');
  });
});

describe('the status route: a holder whose lease has lapsed', () => {
  it('answers 503 intent-failed from the very millisecond the lease ends, its detail saying to resend', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    try {
      const store = new MemoryStore();
      const app = chatApp({ store: recordOps(store) });
      const claim = await store.acquire(KEY, 'fp', 20);
      if (!claim.acquired) throw new Error('the claim was refused');
      vi.setSystemTime(claim.leaseExpiresAt);
      const dead = await app.handle(statusRequest(ID));
      expect(dead.status).toBe(503);
      expect(await dead.json()).toMatchObject({
        code: 'intent-failed',
        status: 503,
        detail: expect.stringContaining('resend the request to take it over'),
      });
    } finally {
      vi.useRealTimers();
    }
  });
});
