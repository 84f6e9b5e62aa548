import { type IdempotencyStore, MemoryStore } from 'answer-once/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chatApp, chatRequest, gate, statusRequest, until } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';

const ID = 'req-0000000001';

/** A view of `store` from a worker whose heartbeats no longer reach it (a network partition). */
function withoutHeartbeats(store: IdempotencyStore): IdempotencyStore {
  return {
    acquire: (...args) => store.acquire(...args),
    renew: async () => {
      throw new Error('ETIMEDOUT');
    },
    complete: (...args) => store.complete(...args),
    fail: (...args) => store.fail(...args),
    get: (...args) => store.get(...args),
    wait: (...args) => store.wait(...args),
  };
}

/** A store whose every call fails, like a Redis that went away. */
const downStore: IdempotencyStore = {
  acquire: () => Promise.reject(new Error('ECONNREFUSED')),
  renew: () => Promise.reject(new Error('ECONNREFUSED')),
  complete: () => Promise.reject(new Error('ECONNREFUSED')),
  fail: () => Promise.reject(new Error('ECONNREFUSED')),
  get: () => Promise.reject(new Error('ECONNREFUSED')),
  wait: () => Promise.reject(new Error('ECONNREFUSED')),
};

afterEach(() => {
  vi.useRealTimers();
});

describe('createIdempotencyHandler: leases and fencing', () => {
  it('runs a handler 3× longer than the lease once while duplicates keep arriving', async () => {
    // Fake timers: every heartbeat beats on time, as the lease assumes; a loaded machine's don't.
    vi.useFakeTimers();
    const app = chatApp({ leaseMs: 300, work: () => sleep(900).then(() => undefined) });
    const startedAt = Date.now();
    let settled = false;
    const first = app.handle(chatRequest()).finally(() => (settled = true));
    const duplicates: { at: number; status: number }[] = [];
    for (let i = 0; i < 100 && !settled; i += 1) {
      await vi.advanceTimersByTimeAsync(20);
      const { status } = await app.handle(chatRequest());
      duplicates.push({ at: Date.now() - startedAt, status });
    }
    expect((await first).status).toBe(200);
    // Past the first lease, a missing heartbeat would have let a duplicate take over.
    const afterFirstLease = duplicates.filter(({ at }) => at > 450);
    expect(afterFirstLease.length).toBeGreaterThanOrEqual(3);
    expect(duplicates.every(({ status }) => status === 202 || status === 200)).toBe(true);
    expect(app.calls).toHaveLength(1);
    expect(app.events.filter((event) => event.type === 'acquired')).toHaveLength(1);
  });

  it('rejects a zombie’s late answer after a takeover, reports it, and keeps the successor’s', async () => {
    const store = new MemoryStore();
    const release = gate();
    const zombie = chatApp({
      store: withoutHeartbeats(store),
      leaseMs: 100,
      work: () => release.promise.then(() => Response.json({ answer: 'zombie' })),
    });
    const successor = chatApp({ store, leaseMs: 100, work: () => Response.json({ answer: 'successor' }) });

    const zombieAnswer = zombie.handle(chatRequest());
    await until(() => zombie.calls.length > 0);
    await sleep(150); // the zombie's lease lapsed: its heartbeats never arrived
    const taken = await successor.handle(chatRequest());
    expect(await taken.json()).toEqual({ answer: 'successor' });
    expect(successor.calls[0]?.context.takeover).toBe(true);
    expect(zombie.calls[0]?.context.signal.aborted).toBe(false);

    release.open();
    const late = await zombieAnswer;
    expect(await late.json()).toEqual({ answer: 'successor' });
    expect(late.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(zombie.events).toContainEqual(expect.objectContaining({ type: 'fenced', operation: 'complete' }));
    expect(await (await successor.handle(statusRequest(ID))).json()).toEqual({ answer: 'successor' });
  });

  it('aborts the work’s signal when a heartbeat finds the lease taken over', async () => {
    const store = new MemoryStore();
    const app = chatApp({
      store,
      leaseMs: 90,
      heartbeatMs: 30,
      work: ({ context }) =>
        new Promise<Response>((resolve) => {
          context.signal.addEventListener('abort', () => resolve(new Response('stopped')));
        }),
    });
    const running = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    const key = app.calls[0]?.context.key ?? '';
    const record = await store.get(key);
    // Force a takeover as if the lease had lapsed: fail it under its own token, re-acquire.
    if (record?.state !== 'processing') throw new Error('expected a running intent');
    await store.fail(key, record.token, '{"status":500}', 60_000);
    await store.acquire(key, record.fingerprint, 60_000);
    const response = await running;
    expect(app.calls[0]?.context.signal.aborted).toBe(true);
    expect(app.events).toContainEqual({ type: 'lease-lost', key, requestId: ID });
    expect(response.status).toBe(202); // the successor is still running
  });

  it('keeps the work running when a store’s renew throws instead of rejecting', async () => {
    const store = new MemoryStore();
    const throwing: IdempotencyStore = {
      ...withoutHeartbeats(store),
      renew: () => {
        throw new Error('renew is not implemented');
      },
    };
    const app = chatApp({ store: throwing, leaseMs: 60, heartbeatMs: 10, work: () => sleep(150).then(() => undefined) });
    const response = await app.handle(chatRequest());
    expect(response.status).toBe(200);
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'renew' }));
  });

  it('answers 503 store-unavailable with Retry-After when the store is down, and never runs the work', async () => {
    const app = chatApp({ store: downStore, retryAfterSeconds: 2 });
    const response = await app.handle(chatRequest());
    expect(response.status).toBe(503);
    expect(response.headers.get('Retry-After')).toBe('2');
    expect(await response.json()).toMatchObject({ code: 'store-unavailable', requestId: ID });
    expect((await app.handle(statusRequest(ID))).status).toBe(503);
    expect(app.calls).toHaveLength(0);
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'acquire' }));
  });

  it('still answers with the work’s outcome when storing it fails (§ 10.3), leaving the intent to its lease', async () => {
    const store = new MemoryStore();
    const failingWrites: IdempotencyStore = {
      ...withoutHeartbeats(store),
      renew: (...args) => store.renew(...args),
      complete: () => Promise.reject(new Error('ETIMEDOUT')),
    };
    // Its tries of the refused write end here, not after the default 5 s (the spec's own timeout).
    const app = chatApp({ store: failingWrites, storeTimeoutMs: 200 });
    const response = await app.handle(chatRequest({ question: 'still there?' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('X-Request-Id')).toBe(ID);
    expect(await response.json()).toEqual({ answer: 'echo: still there?', run: 1 });
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'complete' }));
    expect((await app.handle(chatRequest({ question: 'still there?' }))).status).toBe(202); // lease still held
    expect(app.calls).toHaveLength(1);
  });

  it('answers 503 store-unavailable when the memory store is full of running intents', async () => {
    const release = gate();
    const app = chatApp({
      store: new MemoryStore({ maxEntries: 1 }),
      retryAfterSeconds: 3,
      work: () => release.promise.then(() => undefined),
    });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    const second = await app.handle(chatRequest({ id: 'req-0000000002' }));
    expect(second.status).toBe(503);
    expect(second.headers.get('Retry-After')).toBe('3');
    const problem = (await second.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ code: 'store-unavailable', requestId: 'req-0000000002' });
    expect(JSON.stringify(problem)).not.toContain('alice'); // the store's message names the key
    // The memory store's own message reaches only the operator's store-error event: why, and the bound to raise.
    expect(app.events).toContainEqual(
      expect.objectContaining({
        type: 'store-error',
        operation: 'acquire',
        error: expect.objectContaining({ message: expect.stringContaining('memory store is full (1 records)') }),
      }),
    );
    expect(app.calls).toHaveLength(1);
    release.open();
    await first;
  });
});

describe('createIdempotencyHandler: many instances, one store', () => {
  it('behaves as one server: a resend to another instance waits for the first one’s run', async () => {
    const store = new MemoryStore();
    const release = gate();
    const [east, west] = [chatApp({ store, work: () => release.promise.then(() => undefined) }), chatApp({ store })];
    const first = east!.handle(chatRequest());
    await until(() => east!.calls.length > 0);
    const held = west!.handle(chatRequest({ headers: { Prefer: 'wait=5' } }));
    await sleep(50);
    release.open();
    const [original, resent] = await Promise.all([first, held]);
    expect(await resent.json()).toEqual(await original.json());
    expect(resent.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(east!.calls.length + west!.calls.length).toBe(1);
  });
});

describe('createIdempotencyHandler: the status route', () => {
  it('replays a completed intent with 200 and X-Idempotent-Replayed', async () => {
    const app = chatApp();
    const original = await (await app.handle(chatRequest())).json();
    const status = await app.handle(statusRequest(ID));
    expect(status.status).toBe(200);
    expect(status.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(await status.json()).toEqual(original);
  });

  it('answers 202 while running, and long-polls to the answer with Prefer: wait', async () => {
    const release = gate();
    const app = chatApp({ inProgressStatus: 409, work: () => release.promise.then(() => undefined) });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    const running = await app.handle(statusRequest(ID));
    expect(running.status).toBe(202);
    expect(running.headers.get('Location')).toBe(`/api/status/${ID}`);
    // On a frozen clock no timer fires unless the spec says: the poll can only be woken by the write.
    vi.useFakeTimers();
    let settled = false;
    const polled = app.handle(statusRequest(ID, { headers: { Prefer: 'wait=10' } })).finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(100);
    expect(settled).toBe(false);
    release.open();
    const answer = await polled;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('Preference-Applied')).toBe('wait=10');
    await first;
  });

  it('answers a failed intent whose stored status is not 5xx (a 429) as 503, with its Retry-After', async () => {
    const app = chatApp({ work: () => new Response('slow down', { status: 429, headers: { 'Retry-After': '3' } }) });
    expect((await app.handle(chatRequest())).status).toBe(429);
    const status = await app.handle(statusRequest(ID));
    expect(status.status).toBe(503);
    expect(status.headers.get('Retry-After')).toBe('3');
    expect(await status.json()).toMatchObject({ code: 'intent-failed', requestId: ID });
  });

  it('answers 404 for an unknown ID and 400 for a malformed one', async () => {
    const app = chatApp();
    expect((await app.handle(statusRequest('req-never-sent'))).status).toBe(404);
    expect((await app.handle(statusRequest('no'))).status).toBe(400);
  });

  it('answers intent-failed for a failed intent and for one whose worker died', async () => {
    const store = new MemoryStore();
    const app = chatApp({
      store,
      work: () => {
        throw new Error('boom');
      },
    });
    await app.handle(chatRequest());
    const failed = await app.handle(statusRequest(ID));
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ code: 'intent-failed' });

    const key = app.calls[0]?.context.key.replace(ID, 'req-0000000002') ?? '';
    await store.acquire(key, 'fp', 20);
    await sleep(30);
    const dead = await app.handle(statusRequest('req-0000000002'));
    expect(dead.status).toBe(503);
    expect(await dead.json()).toMatchObject({ code: 'intent-failed' });
  });
});
