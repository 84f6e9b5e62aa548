import { createIdempotencyHandler, type IdempotencyEvent } from 'answer-once/server';
import { serve } from 'answer-once/server/node';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, statusRequest, until } from '../support/server-support.js';

const ID = 'req-0000000001';

describe('createIdempotencyHandler: nothing fails silently', () => {
  const failingScopes: [string, () => unknown][] = [
    [
      'throws',
      () => {
        throw new Error('jwt secret missing at /etc/app/secret');
      },
    ],
    ['returns { user: "" }', () => ({ user: '' })],
    ['returns undefined', () => undefined],
  ];

  it.each(failingScopes)('answers a scope that %s with a bare problem+json 500, reported, nothing run', async (_, scope) => {
    const app = chatApp({ scope: scope as never });
    for (const request of [chatRequest(), statusRequest(ID)]) {
      const response = await app.handle(request);
      expect(response.status).toBe(500);
      expect(response.headers.get('Content-Type')).toBe('application/problem+json');
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({ code: 'internal-error', status: 500, requestId: ID });
      expect(text).not.toMatch(/jwt|secret|scope\(\)|user/);
    }
    expect(app.calls).toHaveLength(0);
    expect(app.events).toEqual([
      { type: 'scope-error', requestId: ID, error: expect.any(Error) },
      { type: 'scope-error', requestId: ID, error: expect.any(Error) },
    ]);
  });

  it('reports what a handler under serve() throws to onError, and answers a problem+json 500', async () => {
    const errors: unknown[] = [];
    const server = await serve(
      () => {
        throw new Error('internal detail');
      },
      { onError: (error) => errors.push(error) },
    );
    try {
      const response = await fetch(`${server.url}/api/chat`, { method: 'POST' });
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({ code: 'internal-error' });
      expect(text).not.toContain('internal detail');
      expect(errors).toEqual([new Error('internal detail')]);
    } finally {
      await server.close();
    }
  });

  it('aborts a handler that runs past maxRunMs, fails the attempt, and lets a resend run it again', async () => {
    let aborted: unknown;
    const app = chatApp({
      maxRunMs: 100,
      leaseMs: 60,
      work: ({ context }) =>
        context.retry
          ? undefined
          : new Promise<Response>(() => {
              context.signal.addEventListener('abort', () => (aborted = context.signal.reason));
            }), // never ends
    });
    const first = await app.handle(chatRequest());
    expect(first.status).toBe(504);
    expect(await first.json()).toMatchObject({ code: 'intent-failed' });
    expect(aborted).toMatchObject({ name: 'RunTimeoutError' });
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'run-timeout', requestId: ID, maxRunMs: 100 }));
    const resend = await app.handle(chatRequest());
    expect(resend.status).toBe(200);
    expect(app.calls).toHaveLength(2);
  });
});

describe('createIdempotencyHandler: events name the intent', () => {
  it('puts the request ID on every event, and the user only when the app opts in', async () => {
    const app = chatApp();
    await (await app.handle(chatRequest())).text();
    await until(() => app.events.length >= 3);
    await (await app.handle(chatRequest())).text();
    await until(() => app.events.length >= 5);
    // The record's write and the first answer's end race; each request ends in one `answered`.
    expect(app.events.map((event) => event.type).sort()).toEqual([
      'acquired',
      'answered',
      'answered',
      'completed',
      'replayed',
    ]);
    expect(app.events.every((event) => event.requestId === ID && !('user' in event))).toBe(true);

    const events: IdempotencyEvent[] = [];
    const handle = createIdempotencyHandler({
      scope: () => ({ user: 'alice' }),
      handler: () => Response.json({ ok: true }),
      eventsIncludeUser: true,
      onEvent: (event) => events.push(event),
    });
    await (await handle(chatRequest())).text();
    await until(() => events.length >= 3);
    expect(events.map((event) => event.type).sort()).toEqual(['acquired', 'answered', 'completed']);
    expect(events.every((event) => event.requestId === ID && event.user === 'alice')).toBe(true);
  });
});
