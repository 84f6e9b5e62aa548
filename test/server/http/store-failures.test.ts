import { type IdempotencyStore, IntentInProgressError, MemoryStore, StoreFailedError } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, gate, recordOps, statusRequest } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';

const ID = 'req-0000000001';
const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

describe('createIdempotencyHandler: store calls have a deadline', () => {
  it('answers 503 store-unavailable + Retry-After when acquire hangs, and runs nothing', async () => {
    const app = chatApp({
      store: recordOps(new MemoryStore(), { acquire: never }),
      storeTimeoutMs: 50,
      retryAfterSeconds: 2,
    });
    const started = Date.now();
    const response = await app.handle(chatRequest());
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(response.status).toBe(503);
    expect(response.headers.get('Retry-After')).toBe('2');
    expect(await response.json()).toMatchObject({ code: 'store-unavailable', requestId: ID });
    expect(app.calls).toHaveLength(0);
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'acquire', requestId: ID }));
  });

  it('answers 503 when a long-poll’s wait hangs past its own timeout plus the deadline', async () => {
    const store = new MemoryStore();
    await store.acquire(`answer-once:{alice::${ID}}`, 'fp', 60_000);
    const app = chatApp({ store: recordOps(store, { wait: never }), storeTimeoutMs: 50 });
    const response = await app.handle(statusRequest(ID, { headers: { Prefer: 'wait=1' } }));
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ code: 'store-unavailable' });
  });

  it('answers 503 when the status route cannot read the answer log, and reports a store-error of read', async () => {
    class UnreadableLogs extends MemoryStore {
      override read(): never {
        throw new Error('ECONNRESET');
      }
    }
    const app = chatApp({ store: new UnreadableLogs() });
    const response = await app.handle(statusRequest(ID));
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ code: 'store-unavailable', requestId: ID });
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'read', requestId: ID }));
  });

  it('keeps renewing while a slow complete is in flight, so a resend meanwhile waits instead of running again', async () => {
    const inner = new MemoryStore();
    const slow = gate();
    const store = recordOps(inner, {
      complete: async (...args) => {
        await slow.promise; // held until the resend below has been answered
        return inner.complete(...args);
      },
    });
    const app = chatApp({ store, leaseMs: 50, heartbeatMs: 10, storeTimeoutMs: 5_000 });
    const first = app.handle(chatRequest());
    await sleep(120); // more than two leases: without renewals the lease would have lapsed
    expect((await app.handle(chatRequest())).status).toBe(202);
    slow.open();
    expect((await first).status).toBe(200);
    expect((await app.handle(chatRequest())).headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(app.calls).toHaveLength(1);
  });

  it('answers the work’s result when complete hangs past the deadline, and reports it (never silent)', async () => {
    const app = chatApp({ store: recordOps(new MemoryStore(), { complete: never }), storeTimeoutMs: 50 });
    const response = await app.handle(chatRequest());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ answer: 'echo: hello?', run: 1 });
    expect(app.events).toContainEqual(
      expect.objectContaining({
        type: 'store-error',
        operation: 'complete',
        requestId: ID,
        error: expect.objectContaining({ name: 'StoreTimeoutError' }),
      }),
    );
  });
});

describe('createIdempotencyHandler: permanent store errors are 500, transient ones 503', () => {
  const failing = (error: unknown): IdempotencyStore =>
    recordOps(new MemoryStore(), { acquire: () => Promise.reject(error) });

  it('answers 500 store-failed, without Retry-After, for an error the store marks permanent', async () => {
    const wrongType = Object.assign(new Error('WRONGTYPE Operation against a key holding the wrong kind of value'), {
      code: 'store-failed',
    });
    const app = chatApp({ store: failing(wrongType) });
    const response = await app.handle(chatRequest());
    expect(response.status).toBe(500);
    expect(response.headers.get('Retry-After')).toBeNull();
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ code: 'store-failed', requestId: ID });
    expect(text).not.toContain('WRONGTYPE');
    expect(app.calls).toHaveLength(0);
  });

  it('answers 503 store-unavailable + Retry-After for a transient error and for an unclassified one', async () => {
    const loading = Object.assign(new Error('LOADING Redis is loading the dataset in memory'), {
      code: 'store-unavailable',
    });
    for (const error of [loading, new Error('ECONNRESET')]) {
      const response = await chatApp({ store: failing(error) }).handle(chatRequest());
      expect(response.status).toBe(503);
      expect(response.headers.get('Retry-After')).toBe('1');
      expect(await response.json()).toMatchObject({ code: 'store-unavailable' });
    }
  });

  it('answers 503 store-unavailable for a store that rejects with something not an Error (null, undefined, a string)', async () => {
    for (const error of [null, undefined, 'ECONNRESET']) {
      const app = chatApp({ store: failing(error) });
      const response = await app.handle(chatRequest());
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ code: 'store-unavailable', requestId: ID });
      expect(app.events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'acquire', error }));
      expect(app.calls).toHaveLength(0);
    }
  });

  it('answers a store’s own StoreFailedError as this intent’s 500, without the store’s title', async () => {
    const own = new StoreFailedError('corrupt record at answer-once:{alice::req-0000000001}');
    const app = chatApp({ store: failing(own) });
    const response = await app.handle(chatRequest());
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ code: 'store-failed', requestId: ID });
    expect(text).not.toContain('corrupt');
    expect(app.calls).toHaveLength(0);
  });

  it('answers any other IdempotencyError a store throws as it stands (not as a store failure)', async () => {
    const app = chatApp({ store: failing(new IntentInProgressError('this key is busy elsewhere')) });
    const response = await app.handle(chatRequest());
    expect(response.status).toBe(409);
    expect(response.headers.get('Retry-After')).toBeNull();
    expect(await response.json()).toMatchObject({ code: 'request-in-progress' });
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'acquire' }));
    expect(app.calls).toHaveLength(0);
  });
});
