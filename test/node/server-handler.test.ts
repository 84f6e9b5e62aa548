import { describe, expect, it } from 'vitest';
import { encodeKey, fingerprintRequest, MemoryStore, type IdempotencyStore } from 'answer-once/server';
import { chatApp, chatRequest, gate, sleep, statusRequest, until, type ChatApp } from './server-support.js';

const ID = 'req-0000000001';

/** The store's record operations only: the buffered behaviour of a store without logs (§ 14.11). */
function withoutLogs(store: MemoryStore): IdempotencyStore {
  return {
    acquire: (...args) => store.acquire(...args),
    renew: (...args) => store.renew(...args),
    complete: (...args) => store.complete(...args),
    fail: (...args) => store.fail(...args),
    get: (...args) => store.get(...args),
    wait: (...args) => store.wait(...args),
  };
}

/** The attempt got an `intent-failed` problem with `status`; a resend runs the work again and answers. */
async function expectFailedThenRunAgain(app: ChatApp<IdempotencyStore>, failed: Response, status: number): Promise<void> {
  expect(failed.status).toBe(status);
  expect(await failed.json()).toMatchObject({ code: 'intent-failed' });
  expect((await app.handle(chatRequest())).status).toBe(200);
  expect(app.calls).toHaveLength(2);
}

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
    const app = chatApp({ work: () => release.promise.then(() => undefined) });
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
  });

  it('runs the work itself when the attempt it waited for fails during the long-poll', async () => {
    const release = gate();
    let failures = 1;
    const app = chatApp({
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

  it('answers a thrown error as intent-failed (5xx) and runs the same intent again on resend', async () => {
    let failures = 1;
    const app = chatApp({
      work: () => {
        if (failures-- > 0) throw new Error('model timeout');
        return undefined;
      },
    });
    const failed = await app.handle(chatRequest());
    expect(failed.status).toBe(500);
    expect(failed.headers.get('Content-Type')).toBe('application/problem+json');
    const problem = (await failed.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ code: 'intent-failed', status: 500, requestId: ID });
    expect(JSON.stringify(problem)).not.toContain('model timeout');
    expect(app.events).toContainEqual(
      expect.objectContaining({ type: 'failed', error: expect.objectContaining({ message: 'model timeout' }) }),
    );
    const retried = await app.handle(chatRequest());
    expect(retried.status).toBe(200);
    expect(app.calls.map((call) => call.context.retry)).toEqual([false, true]);
  });

  it('records a 5xx answer as FAILED with its status and Retry-After, and runs again on resend', async () => {
    let failures = 1;
    const app = chatApp({
      work: () =>
        failures-- > 0 ? new Response('overloaded', { status: 503, headers: { 'Retry-After': '7' } }) : undefined,
    });
    const failed = await app.handle(chatRequest());
    expect(failed.status).toBe(503);
    expect(failed.headers.get('Retry-After')).toBe('7');
    expect(await failed.json()).toMatchObject({ code: 'intent-failed' });
    const status = await app.handle(statusRequest(ID));
    await expectFailedThenRunAgain(app, status, 503);
  });

  it('records a 5xx answer whose body stream broke as FAILED, and runs again on resend', async () => {
    let failures = 1;
    const app = chatApp({
      work: () => {
        if (failures-- <= 0) return undefined;
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.error(new Error('upstream reset'));
          },
        });
        return new Response(body, { status: 503 });
      },
    });
    const failed = await app.handle(chatRequest());
    await expectFailedThenRunAgain(app, failed, 503);
  });

  it('passes 408/425/429 through unchanged and does not keep them as the answer', async () => {
    let limited = 1;
    const app = chatApp({
      work: () => (limited-- > 0 ? new Response('slow down', { status: 429, headers: { 'Retry-After': '3' } }) : undefined),
    });
    const first = await app.handle(chatRequest());
    expect(first.status).toBe(429);
    expect(first.headers.get('Retry-After')).toBe('3');
    expect(await first.text()).toBe('slow down');
    expect((await app.handle(chatRequest())).status).toBe(200);
    expect(app.calls).toHaveLength(2);
  });

  it('answers intent-failed, and runs again on resend, when a 429 comes back with a body already read', async () => {
    let spent = 1;
    const app = chatApp({
      work: async () => {
        if (spent-- <= 0) return undefined;
        const response = new Response('slow down', { status: 429 });
        await response.text(); // e.g. logged by the app before returning it
        return response;
      },
    });
    const failed = await app.handle(chatRequest());
    await expectFailedThenRunAgain(app, failed, 503);
  });

  it('records an answer whose stream breaks before anything went out as FAILED (502 intent-failed), and runs again on resend', async () => {
    let breaks = 1;
    const app = chatApp({
      work: () => {
        if (breaks-- <= 0) return undefined;
        return new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('Once upon'));
              controller.error(new Error('model connection reset'));
            },
          }),
        );
      },
    });
    await expectFailedThenRunAgain(app, await app.handle(chatRequest()), 502);
  });

  it('records an answer whose stream breaks while streaming as FAILED, breaking the caller’s body, and runs again on resend', async () => {
    let breaks = 1;
    const app = chatApp({
      work: () => {
        if (breaks-- <= 0) return undefined;
        return new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode('Once upon'));
              await sleep(10);
              controller.error(new Error('model connection reset'));
            },
          }),
        );
      },
    });
    const broken = await app.handle(chatRequest());
    expect(broken.status).toBe(200); // streamed: the head went out before the body broke
    await expect(broken.text()).rejects.toThrow(/broke off/);
    expect((await app.handle(chatRequest())).status).toBe(200);
    expect(app.calls).toHaveLength(2);
  });

  it('on a store without answer logs, answers a broken stream 502 intent-failed, and runs again on resend', async () => {
    let breaks = 1;
    const app = chatApp({
      store: withoutLogs(new MemoryStore()),
      work: () => {
        if (breaks-- <= 0) return undefined;
        return new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('Once upon'));
              controller.error(new Error('model connection reset'));
            },
          }),
        );
      },
    });
    const broken = await app.handle(chatRequest());
    await expectFailedThenRunAgain(app, broken, 502);
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
    expect(await reused.json()).toMatchObject({ code: 'request-id-reused', requestId: ID });
    expect(app.calls.map((call) => call.question)).toEqual(['first']);
    release.open();
    await first;
  });

  it('treats another path or method with the same ID as another request (422)', async () => {
    const app = chatApp();
    await app.handle(chatRequest());
    expect((await app.handle(chatRequest({ path: '/api/chat?model=big' }))).status).toBe(422);
    expect((await app.handle(chatRequest({ method: 'PUT' }))).status).toBe(422);
    expect(app.calls).toHaveLength(1);
  });
});

describe('createIdempotencyHandler: request IDs', () => {
  it('answers 400 naming the header when no ID is sent', async () => {
    const app = chatApp();
    const response = await app.handle(chatRequest({ id: null }));
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { code: string; title: string };
    expect(problem.code).toBe('missing-request-id');
    expect(problem.title).toContain('X-Request-Id');
    expect(app.calls).toHaveLength(0);
  });

  it.each(['short', 'has space 12345', 'x'.repeat(129), 'ünïcode-12345', 'a,b-12345678'])(
    'answers 400 invalid-request-id for %j',
    async (id) => {
      const app = chatApp();
      const response = await app.handle(chatRequest({ id }));
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'invalid-request-id' });
      expect(app.calls).toHaveLength(0);
    },
  );

  it('accepts Idempotency-Key as a structured-field string or bare, as one intent with X-Request-Id', async () => {
    const app = chatApp();
    const quoted = await app.handle(chatRequest({ id: null, headers: { 'Idempotency-Key': `"${ID}"` } }));
    expect(quoted.status).toBe(200);
    const bare = await app.handle(chatRequest({ id: null, headers: { 'Idempotency-Key': ID } }));
    expect(bare.headers.get('X-Idempotent-Replayed')).toBe('true');
    const both = await app.handle(chatRequest({ headers: { 'Idempotency-Key': `"${ID}"` } }));
    expect(both.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(app.calls).toHaveLength(1);
  });

  it('answers 400 when X-Request-Id and Idempotency-Key disagree', async () => {
    const app = chatApp();
    const response = await app.handle(chatRequest({ headers: { 'Idempotency-Key': '"req-9999999999"' } }));
    expect(response.status).toBe(400);
    expect(app.calls).toHaveLength(0);
  });
});

describe('createIdempotencyHandler: scope', () => {
  it('gives user B sending A’s ID a run of its own, and B reading A’s status a 404', async () => {
    const app = chatApp();
    const alice = await app.handle(chatRequest({ user: 'alice', question: 'my secret' }));
    const bob = await app.handle(chatRequest({ user: 'bob', question: 'my secret' }));
    expect(bob.headers.get('X-Idempotent-Replayed')).toBeNull();
    expect(await bob.json()).toEqual({ answer: 'echo: my secret', run: 2 });
    expect(await alice.json()).toEqual({ answer: 'echo: my secret', run: 1 });
    expect(app.calls.map((call) => call.context.scope.user)).toEqual(['alice', 'bob']);

    const other = await app.handle(chatRequest({ id: 'req-alice-only', user: 'alice' }));
    expect(other.status).toBe(200);
    const probe = await app.handle(statusRequest('req-alice-only', { user: 'bob' }));
    expect(probe.status).toBe(404);
    expect(await probe.json()).toMatchObject({ code: 'intent-not-found' });
    expect((await app.handle(statusRequest('req-alice-only', { user: 'alice/other-session' }))).status).toBe(404);
    expect((await app.handle(statusRequest('req-alice-only', { user: 'alice' }))).status).toBe(200);
  });

  it('keeps (a:b, c) and (a, b:c) apart: the key-collision probe', async () => {
    const app = chatApp({
      scope: (request) => {
        const [user = '', session = ''] = (request.headers.get('Authorization') ?? '').slice(7).split('|');
        return { user, session };
      },
    });
    await app.handle(chatRequest({ user: 'a:b|c', question: 'one' }));
    const second = await app.handle(chatRequest({ user: 'a|b:c', question: 'two' }));
    expect(second.status).toBe(200);
    expect(second.headers.get('X-Idempotent-Replayed')).toBeNull();
    expect(app.calls.map((call) => call.context.key)).toEqual([
      `answer-once:{a%3Ab:c:${ID}}`,
      `answer-once:{a:b%3Ac:${ID}}`,
    ]);
  });

  it('answers with the scope’s own Response (401) and runs nothing', async () => {
    const app = chatApp();
    const response = await app.handle(chatRequest({ user: '' }));
    expect(response.status).toBe(401);
    expect(app.calls).toHaveLength(0);
    expect(app.store.size).toBe(0);
  });
});

describe('createIdempotencyHandler: limits', () => {
  it('answers 413 for a body over maxBodyBytes, stores nothing, and runs the small resend', async () => {
    const app = chatApp({ maxBodyBytes: 64 });
    const big = JSON.stringify({ question: 'x'.repeat(100) });
    const declared = await app.handle(chatRequest({ body: big }));
    expect(declared.status).toBe(413);
    expect(await declared.json()).toMatchObject({ code: 'payload-too-large', requestId: ID });
    const streamed = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i += 1) controller.enqueue(new TextEncoder().encode('x'.repeat(20)));
        controller.close();
      },
    });
    const undeclared = await app.handle(
      new Request('http://app.test/api/chat', {
        method: 'POST',
        headers: { Authorization: 'Bearer alice', 'X-Request-Id': ID },
        body: streamed,
        duplex: 'half',
      } as RequestInit),
    );
    expect(undeclared.status).toBe(413);
    expect(app.store.size).toBe(0);
    expect(app.calls).toHaveLength(0);
    expect((await app.handle(chatRequest())).status).toBe(200);
  });

  it('delivers an answer over maxResponseBytes once, and says on replay that it cannot be replayed', async () => {
    const long = 'token '.repeat(1_000);
    const app = chatApp({ maxResponseBytes: 1_024, work: () => new Response(long) });
    const first = await app.handle(chatRequest());
    expect(await first.text()).toBe(long);
    const replay = await app.handle(chatRequest());
    expect(replay.status).toBe(410);
    expect(replay.headers.get('Content-Type')).toBe('application/problem+json');
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(await replay.json()).toMatchObject({ code: 'response-not-replayable', answeredStatus: 200, requestId: ID });
    expect(app.calls).toHaveLength(1);
  });

  it('stores a streamed answer whole and replays the same bytes', async () => {
    const app = chatApp({
      work: () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              for (const word of ['Once ', 'upon ', 'a ', 'time.']) {
                controller.enqueue(new TextEncoder().encode(word));
                await sleep(5);
              }
              controller.close();
            },
          }),
          { headers: { 'Content-Type': 'text/plain; charset=utf-8' } },
        ),
    });
    expect(await (await app.handle(chatRequest())).text()).toBe('Once upon a time.');
    const replay = await app.handle(chatRequest());
    expect(await replay.text()).toBe('Once upon a time.');
    expect(replay.headers.get('Content-Type')).toBe('text/plain; charset=utf-8');
  });
});
