import { createIdempotencyHandler, encodeKey, fingerprintRequest, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, gate, notingCalls, recordOps, until } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';

const ID = 'req-0000000001';

describe('createIdempotencyHandler: the state table', () => {
  it('runs the work for an unknown intent and answers with its response', async () => {
    const app = chatApp();
    const response = await app.handle(chatRequest({ question: 'why is the sky blue?' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ answer: 'echo: why is the sky blue?', run: 1 });
    expect(response.headers.get('X-Request-Id')).toBe(ID);
    expect(response.headers.get('X-Idempotent-Replayed')).toBeNull();
    expect(app.calls).toHaveLength(1);
    expect(app.calls[0]?.context).toMatchObject({ requestId: ID, takeover: false, retry: false });
  });

  it('replays a COMPLETED answer — status, body, allow-listed headers — without running again', async () => {
    const app = chatApp({
      work: () =>
        new Response('{"answer":"42"}', {
          status: 201,
          headers: { 'Content-Type': 'application/json', ETag: '"v1"', 'Set-Cookie': 'a=b', 'X-Debug': 'run' },
        }),
    });
    await (await app.handle(chatRequest())).text();
    const replay = await app.handle(chatRequest());
    expect(replay.status).toBe(201);
    expect(await replay.text()).toBe('{"answer":"42"}');
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(replay.headers.get('Content-Type')).toBe('application/json');
    expect(replay.headers.get('ETag')).toBe('"v1"');
    expect(replay.headers.get('Set-Cookie')).toBeNull();
    expect(replay.headers.get('X-Debug')).toBeNull();
    expect(app.calls).toHaveLength(1);
  });

  it('answers a resend of a running intent with 202, Location and Retry-After', async () => {
    const release = gate();
    const app = chatApp({ work: () => release.promise.then(() => undefined) });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    const resend = await app.handle(chatRequest());
    expect(resend.status).toBe(202);
    expect(resend.headers.get('Location')).toBe(`/api/status/${ID}`);
    expect(resend.headers.get('Retry-After')).toBe('1');
    expect(resend.headers.get('X-Request-Id')).toBe(ID);
    expect(resend.headers.get('Cache-Control')).toBe('no-store');
    expect(resend.headers.get('Content-Type')).toBe('application/json');
    expect(resend.headers.get('Preference-Applied')).toBeNull(); // it asked for no wait
    expect(await resend.json()).toEqual({ requestId: ID, state: 'processing', location: `/api/status/${ID}` });
    release.open();
    expect((await first).status).toBe(200);
    expect(app.calls).toHaveLength(1);
  });

  it('answers 409 request-in-progress instead, when inProgressStatus is 409 (the IETF draft)', async () => {
    const release = gate();
    const app = chatApp({ inProgressStatus: 409, retryAfterSeconds: 2, work: () => release.promise.then(() => undefined) });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    const resend = await app.handle(chatRequest());
    expect(resend.status).toBe(409);
    expect(resend.headers.get('Content-Type')).toBe('application/problem+json');
    expect(resend.headers.get('Retry-After')).toBe('2');
    expect(resend.headers.get('Location')).toBe(`/api/status/${ID}`);
    expect(await resend.json()).toMatchObject({ code: 'request-in-progress', requestId: ID });
    release.open();
    await first;
  });

  it('holds a resend with Prefer: wait and answers within 50 ms of completion', async () => {
    const release = gate();
    const calls: string[] = [];
    const store = new MemoryStore();
    // The store as it is, each call noted: what a held resend costs in round trips.
    const noted = notingCalls(store, calls);
    const app = chatApp({ store: noted, work: () => release.promise.then(() => undefined) });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    const held = app.handle(chatRequest({ headers: { Prefer: 'wait=5' } }));
    await sleep(200);
    const completedAt = performance.now();
    release.open();
    const response = await held;
    const latency = performance.now() - completedAt;
    expect(response.status).toBe(200);
    expect(response.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(response.headers.get('Preference-Applied')).toBe('wait=5');
    expect(await response.json()).toEqual(await (await first).json());
    expect(latency).toBeLessThan(50);
    expect(app.calls).toHaveLength(1);
    // The resend: one acquire that found it running, one read that waited; no second claim.
    const resendCalls = calls.slice(calls.indexOf('acquire', 1));
    expect(resendCalls.filter((call) => call === 'acquire')).toHaveLength(1);
  });

  it.each([
    ['', () => new MemoryStore()],
    [' (a store without answer logs)', () => recordOps(new MemoryStore())],
  ])('runs the work itself when the attempt it waited for fails during the long-poll%s', async (_, makeStore) => {
    const release = gate();
    let failures = 1;
    const app = chatApp({
      store: makeStore(),
      work: async () => {
        if (failures-- > 0) {
          await release.promise;
          throw new Error('model crashed');
        }
        return undefined;
      },
    });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    const held = app.handle(chatRequest({ headers: { Prefer: 'wait=5' } }));
    await sleep(50);
    release.open();
    expect((await first).status).toBe(500);
    const response = await held;
    expect(response.status).toBe(200);
    expect(response.headers.get('X-Idempotent-Replayed')).toBeNull();
    expect(response.headers.get('Preference-Applied')).toBe('wait=5');
    expect(app.calls.map((call) => call.context.retry)).toEqual([false, true]);
  });

  it('caps Prefer: wait at maxWaitMs and then answers 202', async () => {
    const release = gate();
    const app = chatApp({ maxWaitMs: 1_000, work: () => release.promise.then(() => undefined) });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    const start = performance.now();
    const response = await app.handle(chatRequest({ headers: { Prefer: 'wait=60' } }));
    const held = performance.now() - start;
    expect(response.status).toBe(202);
    expect(response.headers.get('Preference-Applied')).toBe('wait=1');
    expect(held).toBeGreaterThanOrEqual(990);
    expect(held).toBeLessThan(5_000); // capped at 1 s, not the 60 s asked for
    release.open();
    await first;
  });

  it('takes over an intent whose worker died (lease expired) and runs it with a new token', async () => {
    const store = new MemoryStore();
    const app = chatApp({ store, leaseMs: 300 });
    // A worker acquired this very request, then died: no heartbeat, no answer.
    const body = new TextEncoder().encode(JSON.stringify({ question: 'hello?' }));
    const fingerprint = await fingerprintRequest('POST', '/api/chat', body);
    const dead = await store.acquire(encodeKey({ user: 'alice', session: '' }, ID), fingerprint, 300);
    expect(dead.acquired).toBe(true);
    expect((await app.handle(chatRequest())).status).toBe(202);
    expect(app.calls).toHaveLength(0);
    await sleep(330);
    const response = await app.handle(chatRequest());
    expect(response.status).toBe(200);
    expect(app.calls).toHaveLength(1);
    expect(app.calls[0]?.context.takeover).toBe(true);
  });

  it('keeps a 4xx answer of the work as the answer and replays it', async () => {
    const app = chatApp({ work: () => Response.json({ error: 'too long' }, { status: 400 }) });
    await app.handle(chatRequest());
    const replay = await app.handle(chatRequest());
    expect(replay.status).toBe(400);
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(app.calls).toHaveLength(1);
  });

  it.each([
    ['COMPLETED', 'done'],
    ['PROCESSING', 'running'],
    ['FAILED', 'failed'],
  ] as const)('answers the same ID with another body 422 while %s, running and replaying nothing', async (_state, mode) => {
    const release = gate();
    const app = chatApp({
      work: () => {
        if (mode === 'failed') throw new Error('boom');
        return mode === 'running' ? release.promise.then(() => undefined) : undefined;
      },
    });
    const first = app.handle(chatRequest({ question: 'first' }));
    if (mode !== 'running') await first;
    else await until(() => app.calls.length > 0);
    const reused = await app.handle(chatRequest({ question: 'second' }));
    expect(reused.status).toBe(422);
    expect(await reused.json()).toMatchObject({
      code: 'request-id-reused',
      requestId: ID,
      title: expect.stringContaining('already used with another method, path or body'),
    });
    expect(app.calls.map((call) => call.question)).toEqual(['first']);
    release.open();
    await first;
  });

  it('runs an intent sent without a body (GET) and replays its answer', async () => {
    const app = createIdempotencyHandler({
      store: new MemoryStore(),
      scope: () => ({ user: 'alice' }),
      handler: async (request) => Response.json({ method: request.method, body: await request.text() }),
    });
    const get = () => new Request('http://app.test/api/report', { headers: { 'X-Request-Id': ID } });
    const first = await app(get());
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ method: 'GET', body: '' });
    const replay = await app(get());
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
  });

  it('treats another path or method with the same ID as another request (422)', async () => {
    const app = chatApp();
    await app.handle(chatRequest());
    expect((await app.handle(chatRequest({ path: '/api/chat?model=big' }))).status).toBe(422);
    expect((await app.handle(chatRequest({ method: 'PUT' }))).status).toBe(422);
    expect(app.calls).toHaveLength(1);
  });
});
