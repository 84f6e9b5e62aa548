/**
 * The Request the work receives: the caller's method, URL, headers and body (read once by
 * the handler, for the fingerprint and the work alike), and a signal of its own — a
 * client that disconnects does not cancel the work whose answer it will ask for again.
 */

import { createIdempotencyHandler, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { gate, until } from '../../support/server-support.js';

const ID = 'req-0000000001';

function send(init: { method?: string; body?: string; signal?: AbortSignal } = {}): Request {
  return new Request('http://app.test/api/chat?lang=fr', {
    method: init.method ?? 'POST',
    headers: { 'X-Request-Id': ID, 'Content-Type': 'application/json', 'X-Trace': 't-1' },
    ...(init.body === undefined ? {} : { body: init.body }),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

describe('createIdempotencyHandler: the work’s request', () => {
  it('carries the caller’s method, URL, headers and body', async () => {
    const seen: { method: string; url: string; trace: string | null; body: string }[] = [];
    const handle = createIdempotencyHandler({
      store: new MemoryStore(),
      scope: () => ({ user: 'alice' }),
      handler: async (request) => {
        seen.push({
          method: request.method,
          url: request.url,
          trace: request.headers.get('X-Trace'),
          body: await request.text(),
        });
        return Response.json({ ok: true });
      },
    });
    expect((await handle(send({ body: '{"question":"hi"}' }))).status).toBe(200);
    expect(seen).toEqual([
      { method: 'POST', url: 'http://app.test/api/chat?lang=fr', trace: 't-1', body: '{"question":"hi"}' },
    ]);
  });

  it('is not aborted when the caller’s request is: the work answers, and the retry replays that answer', async () => {
    const release = gate();
    const aborted: boolean[] = [];
    let calls = 0;
    const handle = createIdempotencyHandler({
      store: new MemoryStore(),
      scope: () => ({ user: 'alice' }),
      handler: async (request) => {
        calls += 1;
        await request.text();
        await release.promise;
        aborted.push(request.signal.aborted);
        return Response.json({ answer: 'done' });
      },
    });
    const client = new AbortController();
    const first = handle(send({ body: '{"question":"hi"}', signal: client.signal }));
    await until(() => calls === 1);
    client.abort(); // the client went away
    release.open();
    await first;
    expect(aborted).toEqual([false]);
    const retry = await handle(send({ body: '{"question":"hi"}' }));
    expect(retry.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(await retry.json()).toEqual({ answer: 'done' });
    expect(calls).toBe(1);
  });

  it('is made from a Request of another Fetch implementation too (as Next.js route handlers get), which this runtime cannot copy', async () => {
    const seen: { url: string; trace: string | null; body: string }[] = [];
    const handle = createIdempotencyHandler({
      store: new MemoryStore(),
      scope: () => ({ user: 'alice' }),
      handler: async (request) => {
        seen.push({ url: request.url, trace: request.headers.get('X-Trace'), body: await request.text() });
        return Response.json({ answer: 'done' });
      },
    });
    const foreign = () => foreignRequest(send({ body: '{"question":"hi"}' }));
    expect(() => new Request(foreign())).toThrow(TypeError); // what the copy meets
    const first = await handle(foreign());
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ answer: 'done' });
    const replay = await handle(foreign());
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(seen).toEqual([{ url: 'http://app.test/api/chat?lang=fr', trace: 't-1', body: '{"question":"hi"}' }]);
  });
});

/**
 * A Request whose public API works but whose internals are not this runtime's: what a
 * framework's own Request class (or one from another copy of undici) is to `new Request()`.
 */
function foreignRequest(request: Request): Request {
  return new Proxy(request, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
