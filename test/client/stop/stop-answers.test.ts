/**
 * `client.stop()` against every answer a stop route can give (PROTOCOL.md § 14.8): what it
 * resolves with, what it rejects with, which answers it sends again, and where the
 * `DELETE` goes. The route is a stub `fetch` that records each request and answers from a
 * script, so each case names exactly what the server said.
 */

import {
  createClient,
  isAbortError,
  isConnectionError,
  isStopNotConfirmedError,
  memoryStorageAdapter,
  type StoredIntent,
  stopping,
} from 'answer-once';
import { describe, expect, it } from 'vitest';

const ID = '01JSTOPANSWERS00000000000A';
const BASE = 'http://127.0.0.1:9/';

const problem = (status: number, code: string, headers: Record<string, string> = {}) =>
  Response.json(
    { type: `https://answer-once.dev/problems/${code}`, title: code, status, code },
    { status, headers: { 'content-type': 'application/problem+json', ...headers } },
  );

/** A stop route answering `answers` in turn (the last one again once they run out). */
function route(...answers: (() => Response | Promise<Response>)[]) {
  const seen: { method: string; url: string; id: string | null }[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.push({ method: request.method, url: request.url, id: request.headers.get('x-request-id') });
    return answers[Math.min(seen.length, answers.length) - 1]!();
  };
  return { seen, fetch: fetch as typeof globalThis.fetch };
}

const clientOver = (stub: ReturnType<typeof route>, extra: Parameters<typeof createClient>[0] = {}) =>
  createClient({ stopping, baseUrl: BASE, fetch: stub.fetch, retry: { limit: 2, backoffLimit: 5 }, ...extra });

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the stop to reject');
}

describe('client.stop answers', () => {
  it('resolves stopping on 202, with one DELETE carrying the intent ID', async () => {
    const stub = route(() => new Response(null, { status: 202 }));
    const result = await clientOver(stub).stop(ID);
    expect(result).toMatchObject({ requestId: ID, outcome: 'stopping' });
    expect(result.response.status).toBe(202);
    expect(stub.seen).toEqual([{ method: 'DELETE', url: `${BASE}api/status/${ID}`, id: ID }]);
  });

  it('resolves settled for a stored answer (replayed) and for a failed, already stopped or exhausted intent', async () => {
    const answers = [
      () => Response.json({ answer: 'done' }, { headers: { 'X-Idempotent-Replayed': 'true' } }),
      () => problem(409, 'intent-failed'),
      () => problem(409, 'intent-stopped'),
      () => problem(409, 'intent-exhausted'),
    ];
    for (const answer of answers) {
      expect((await clientOver(route(answer)).stop(ID)).outcome).toBe('settled');
    }
  });

  it('resolves unknown only for the protocol’s 404 intent-not-found; a bare 404 (no route there) is not confirmed', async () => {
    expect((await clientOver(route(() => problem(404, 'intent-not-found'))).stop(ID)).outcome).toBe('unknown');
    const bare = await rejection(clientOver(route(() => new Response('Not Found', { status: 404 }))).stop(ID));
    expect(isStopNotConfirmedError(bare) && bare.status).toBe(404);
    expect((bare as Error).message).toMatch(/404: no status route at that URL/);
    const error = await rejection(clientOver(route(() => problem(404, 'no-such-route'))).stop(ID));
    expect(isStopNotConfirmedError(error) && error.status).toBe(404);
  });

  it('rejects a 200 that is not a replay: a stop route never answers a live intent so', async () => {
    const error = await rejection(clientOver(route(() => Response.json({ answer: 'fresh' }))).stop(ID));
    expect(isStopNotConfirmedError(error) && error.data).toEqual({ answer: 'fresh' });
  });

  it('rejects 501 stop-unsupported once, not retryable, with the problem read and its cause named', async () => {
    const stub = route(() => problem(501, 'stop-unsupported'));
    const error = await rejection(clientOver(stub).stop(ID));
    expect(isStopNotConfirmedError(error)).toBe(true);
    expect(error).toMatchObject({ status: 501, retryable: false, requestId: ID, problem: { code: 'stop-unsupported' } });
    expect((error as Error).message).toMatch(/keeps no answer logs.*may still be generating/);
    expect(stub.seen).toHaveLength(1);
  });

  it('keeps a text body that is not a problem as the data, with no problem', async () => {
    const stub = route(() => new Response('go away', { status: 401, headers: { 'content-type': 'text/plain' } }));
    const error = await rejection(clientOver(stub).stop(ID));
    expect(error).toMatchObject({ status: 401, data: 'go away', problem: undefined });
    const broken = route(() => new Response('{not json', { status: 401, headers: { 'content-type': 'application/json' } }));
    expect(await rejection(clientOver(broken).stop(ID))).toMatchObject({ data: '{not json', problem: undefined });
  });

  it('sends the stop again after a 503 with the same ID, and settles on the next answer', async () => {
    const stub = route(
      () => problem(503, 'store-unavailable', { 'Retry-After': '0' }),
      () => new Response(null, { status: 202 }),
    );
    expect((await clientOver(stub).stop(ID)).outcome).toBe('stopping');
    expect(stub.seen.map((request) => request.id)).toEqual([ID, ID]);
  });

  it('rejects a 503 that outlasts the retries as retryable, after limit + 1 requests', async () => {
    const stub = route(() => problem(503, 'store-unavailable', { 'Retry-After': '0' }));
    const error = await rejection(clientOver(stub).stop(ID));
    expect(error).toMatchObject({ status: 503, retryable: true });
    expect(stub.seen).toHaveLength(3);
  });

  it('rejects a network failure as not confirmed (retryable, caused by a ConnectionError), and an aborted stop with AbortError', async () => {
    const down = route(() => Promise.reject(new TypeError('fetch failed')));
    const failed = await rejection(clientOver(down, { retry: 0 }).stop(ID));
    expect(isStopNotConfirmedError(failed)).toBe(true);
    expect(failed).toMatchObject({ status: undefined, retryable: true, message: /stop not confirmed, no answer came back/ });
    expect(isConnectionError((failed as Error).cause)).toBe(true);
    const controller = new AbortController();
    controller.abort();
    const idle = route(() => new Response(null, { status: 202 }));
    const aborted = await rejection(clientOver(idle).stop(ID, { signal: controller.signal }));
    expect(isAbortError(aborted)).toBe(true);
    expect(idle.seen).toEqual([]); // called off before it began: nothing sent
  });

  it("sends a stored intent's stop to the status route on the origin it was sent to, and marks it stopped", async () => {
    const storage = memoryStorageAdapter();
    const stored: StoredIntent = {
      v: 1,
      requestId: ID,
      input: 'v2/chat',
      url: 'http://127.0.0.1:7/v2/chat',
      method: 'POST',
      headers: [['content-type', 'application/json']],
      body: '{"q":"hi"}',
      createdAt: Date.now(),
    };
    await storage.save(stored);
    const stub = route(() => new Response(null, { status: 202 }));
    await clientOver(stub, { storage }).stop(stored);
    expect(stub.seen.map((request) => request.url)).toEqual([`http://127.0.0.1:7/api/status/${ID}`]);
    expect(await storage.list()).toEqual([{ ...stored, stopped: true }]);
  });

  it('sends to the url option over statusUrl, and names a bad target', async () => {
    const stub = route(() => new Response(null, { status: 202 }));
    const client = clientOver(stub, { statusUrl: (id) => `${BASE}never/${id}` });
    await client.stop(ID, { url: `${BASE}chosen/${ID}` });
    expect(stub.seen.map((request) => request.url)).toEqual([`${BASE}chosen/${ID}`]);
    await expect(client.stop(null as never)).rejects.toThrow(/requestId/);
    await expect(client.stop({ requestId: 'bad id' } as never)).rejects.toThrow(TypeError);
  });
});
