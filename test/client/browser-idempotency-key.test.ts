/**
 * A browser may add an `Idempotency-Key` of its own to every POST that has none (Firefox
 * ships one behind a preference). The client names the intent in both headers, so the
 * browser adds nothing; a client that sends `X-Request-Id` alone gets a pair that
 * disagrees, which the server reads by `X-Request-Id` (PROTOCOL.md § 2.4). The reference
 * handler runs in-process behind such a fetch.
 */

import { type ClientOptions, createClient, stopping, streaming } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { chatApp } from '../support/server-support.js';

const BASE = 'http://127.0.0.1:9/';

/** The reference server behind a fetch that adds a fresh key to each keyless POST, as the browser does. */
function browserRig(loseFirstAnswer = false) {
  const app = chatApp();
  const sent: Request[] = [];
  let lost = !loseFirstAnswer;
  let added = 0;
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    let request = input instanceof Request ? input : new Request(input, init);
    if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) {
      added += 1;
      const headers = new Headers(request.headers);
      headers.set('Idempotency-Key', `"browser-${added}-${Math.random().toString(36).slice(2)}"`);
      request = new Request(request, { headers });
    }
    sent.push(request.clone());
    const response = await app.handle(request);
    if (!lost) {
      lost = true;
      await response.arrayBuffer();
      throw new TypeError('NetworkError when attempting to fetch resource.');
    }
    return response;
  };
  const client = (options: ClientOptions = {}) =>
    createClient({
      stopping,
      streaming,
      baseUrl: BASE,
      fetch,
      headers: { Authorization: 'Bearer u' },
      retry: { limit: 2, delay: 1 },
      ...options,
    });
  return { app, sent, client };
}

describe('createClient in a browser that adds its own Idempotency-Key', () => {
  it('gets its answer, with one model call, on the first send and on a resend', async () => {
    const { app, sent, client } = browserRig();
    const chat = client();
    const first = await chat.send<{ answer: string }>('chat', { json: { question: 'hi' } });
    expect(first.data.answer).toBe('echo: hi');
    const again = await chat.send<{ answer: string }>('chat', { json: { question: 'hi' }, requestId: first.requestId });
    expect(again.data).toEqual(first.data);
    expect(again.replayed).toBe(true);
    expect(app.calls).toHaveLength(1);
    expect(sent.map((request) => request.headers.get('Idempotency-Key'))).toEqual([
      `"${first.requestId}"`,
      `"${first.requestId}"`,
    ]);
  });

  it('gets its answer, with one model call, when the first answer is lost and the send is retried', async () => {
    const { app, sent, client } = browserRig(true);
    const result = await client().send<{ answer: string }>('chat', { json: { question: 'hi' } });
    expect(result.data.answer).toBe('echo: hi');
    expect(result.replayed).toBe(true);
    expect(result.attempts).toBe(2);
    expect(sent).toHaveLength(2);
    expect(app.calls).toHaveLength(1);
  });

  it('gets its answer through client.fetch, with one model call, on the first call and on a resend', async () => {
    const { app, client } = browserRig();
    const chat = client();
    const init = { method: 'POST', headers: { 'X-Request-Id': 'intent-fetch-0001' }, body: '{"question":"hi"}' };
    const first = await chat.fetch(`${BASE}chat`, init);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ answer: 'echo: hi' });
    const again = await chat.fetch(`${BASE}chat`, init);
    expect(again.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(await again.json()).toMatchObject({ answer: 'echo: hi' });
    expect(app.calls).toHaveLength(1);
  });

  it('gets its answer, with one model call, even when it names the intent in X-Request-Id alone (the server reads that one)', async () => {
    const { app, sent, client } = browserRig(true);
    const result = await client({ headerName: 'X-Request-Id' }).send<{ answer: string }>('chat', {
      json: { question: 'hi' },
    });
    expect(result.data.answer).toBe('echo: hi');
    const keys = sent.map((request) => request.headers.get('Idempotency-Key'));
    expect(new Set(keys).size).toBe(2); // the browser's own key, a new one per attempt
    expect(app.calls).toHaveLength(1);
  });
});

/** A stub server answering from `answer`, recording what each request carried. */
function wire(answer: (request: Request, n: number) => Response) {
  const seen: { method: string; path: string; id: string | null; key: string | null }[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const { pathname } = new URL(request.url);
    const [id, key] = [request.headers.get('X-Request-Id'), request.headers.get('Idempotency-Key')];
    seen.push({ method: request.method, path: pathname, id, key });
    if (seen.length === 1) throw new TypeError('fetch failed');
    return answer(request, seen.length);
  };
  return { seen, fetch };
}

const problem = (status: number, code: string) =>
  Response.json(
    { type: 'about:blank', title: code, status, code },
    {
      status,
      headers: { 'Content-Type': 'application/problem+json' },
    },
  );

describe('the intent’s ID on the wire', () => {
  const ID = 'intent-wire-0001';
  // attempt (lost) → retry → 202 → poll (failed: resend) → resend → answer; then a stop.
  const script = (request: Request, n: number) =>
    n === 2
      ? new Response(null, { status: 202, headers: { Location: `/api/status/${ID}` } })
      : n === 3
        ? problem(503, 'intent-failed')
        : request.method === 'DELETE'
          ? new Response(null, { status: 202 })
          : Response.json({ answer: 'a' });

  /** The requests a send through `script` and a stop made, the client's `headerName` as given. */
  const sendAndStop = async (headerName?: ClientOptions['headerName']) => {
    const { seen, fetch } = wire(script);
    const client = createClient({
      stopping,
      streaming,
      baseUrl: BASE,
      fetch,
      retry: { limit: 3, delay: 1 },
      pollInterval: 1,
      pollWait: 0,
      headerName,
    });
    await client.send('chat', { json: {}, requestId: ID });
    await client.stop(ID, { url: `${BASE}api/status/${ID}` });
    return seen;
  };

  it('names it in X-Request-Id and Idempotency-Key alike on every attempt, retry, poll, resend and stop', async () => {
    expect(await sendAndStop()).toEqual([
      { method: 'POST', path: '/chat', id: ID, key: `"${ID}"` },
      { method: 'POST', path: '/chat', id: ID, key: `"${ID}"` },
      { method: 'GET', path: `/api/status/${ID}`, id: ID, key: `"${ID}"` },
      { method: 'POST', path: '/chat', id: ID, key: `"${ID}"` },
      { method: 'DELETE', path: `/api/status/${ID}`, id: ID, key: `"${ID}"` },
    ]);
  });

  it.each([
    ['X-Request-Id', ID, null],
    ['Idempotency-Key', null, `"${ID}"`],
  ] as const)('names it in %s alone on every request when headerName says so', async (headerName, id, key) => {
    const seen = await sendAndStop(headerName);
    expect(seen.map((request) => [request.id, request.key])).toEqual(Array(5).fill([id, key]));
  });
});
