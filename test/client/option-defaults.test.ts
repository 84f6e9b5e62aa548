/**
 * What `createClient()`'s defaults and resolved options do, seen from a stub `fetch`:
 * the ID goes in `X-Request-Id` as is and quoted in `Idempotency-Key`, or in the one `headerName`
 * names (given in any case);
 * a replay is known by `X-Idempotent-Replayed` or Stripe's header, or by `replayedHeader`
 * instead of the default; 4 retries on the 7 default statuses (or `statusCodes`), a first
 * backoff ceiling of 300 ms capped at 10 s, `Retry-After` honoured up to 30 s, `retry` as
 * a bare limit; polls ask `Prefer: wait=10`, are paced at 1 s with a 250 ms floor, go to
 * `statusUrl`; a 30 s attempt timeout and a 120 s deadline; `parse: 'auto'`, `parseJson`,
 * `onEvent`, the client-wide `signal` and ky options (headers) all reach the send.
 */

import {
  type ClientOptions,
  createClient,
  isAbortError,
  isConnectionError,
  isDeadlineExceededError,
  type SendEvent,
} from 'answer-once';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { untilAborted } from '../support/in-flight.js';
import { advance } from '../support/protocol-fake.js';

const BASE = 'http://127.0.0.1:9/';

afterEach(() => {
  vi.useRealTimers();
});

/** A stub fetch answering from `answer` and recording every request. */
function stub(answer: (request: Request, n: number) => Response | Promise<Response>) {
  const requests: Request[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    requests.push(request);
    return answer(request, requests.length);
  };
  return { requests, fetch: fetch as typeof globalThis.fetch };
}

/** A fetch that never answers, failing only when its request is aborted, as a real one does. */
const hanging = stub(untilAborted);

const status = (code: number, headers: Record<string, string> = {}) => new Response(null, { status: code, headers });

/** Sends once and stops at the first event of `type`, returning it: a delay is read, never waited. */
async function firstEvent<T extends SendEvent['type']>(
  type: T,
  options: ClientOptions,
  answer: (request: Request, n: number) => Response,
): Promise<Extract<SendEvent, { type: T }>> {
  const controller = new AbortController();
  let seen: SendEvent | undefined;
  const server = stub(answer);
  const onEvent = (event: SendEvent) => {
    if (event.type !== type || seen) return;
    seen = event;
    controller.abort();
  };
  const client = createClient({ baseUrl: BASE, fetch: server.fetch, onEvent, ...options });
  const error = await client.send('chat', { json: {}, signal: controller.signal }).catch((e: unknown) => e);
  expect(isAbortError(error)).toBe(true);
  return seen as Extract<SendEvent, { type: T }>;
}

describe('the ID header', () => {
  it('is both by default: X-Request-Id as is, Idempotency-Key quoted, naming the same ID', async () => {
    const server = stub(() => Response.json({}));
    await createClient({ baseUrl: BASE, fetch: server.fetch }).send('chat', { requestId: 'intent-0001' });
    expect(server.requests[0]!.headers.get('x-request-id')).toBe('intent-0001');
    expect(server.requests[0]!.headers.get('idempotency-key')).toBe('"intent-0001"');
  });

  it.each(['Idempotency-Key', 'idempotency-key', 'IDEMPOTENCY-KEY'])(
    'is Idempotency-Key with a quoted value when headerName is %s, on polls too',
    async (headerName) => {
      const server = stub((_, n) => (n === 1 ? status(202, { Location: '/status/1' }) : Response.json({})));
      const client = createClient({ baseUrl: BASE, fetch: server.fetch, headerName: headerName as never });
      await client.send('chat', { requestId: 'intent-0001' });
      expect(server.requests.map((r) => r.headers.get('idempotency-key'))).toEqual(['"intent-0001"', '"intent-0001"']);
      expect(server.requests[0]!.headers.has('x-request-id')).toBe(false);
    },
  );

  it('is X-Request-Id, unquoted, when named in another case', async () => {
    const server = stub(() => Response.json({}));
    await createClient({ baseUrl: BASE, fetch: server.fetch, headerName: 'x-request-id' as never }).send('chat', {
      requestId: 'intent-0001',
    });
    expect(server.requests[0]!.headers.get('x-request-id')).toBe('intent-0001');
    expect(server.requests[0]!.headers.has('idempotency-key')).toBe(false);
  });
});

describe('replays', () => {
  it.each<[string, Record<string, string>, ClientOptions, boolean]>([
    ['X-Idempotent-Replayed by default', { 'X-Idempotent-Replayed': 'true' }, {}, true],
    ["Stripe's Idempotent-Replayed", { 'Idempotent-Replayed': 'true' }, {}, true],
    ['no replay header', {}, {}, false],
    ['replayedHeader instead of the default', { 'X-Cached': 'true' }, { replayedHeader: 'X-Cached' }, true],
    [
      'not the default once replayedHeader is set',
      { 'X-Idempotent-Replayed': 'true' },
      { replayedHeader: 'X-Cached' },
      false,
    ],
    ["Stripe's still, with replayedHeader set", { 'Idempotent-Replayed': 'true' }, { replayedHeader: 'X-Cached' }, true],
  ])('knows a replay by %s', async (_, headers, options, replayed) => {
    const server = stub(() => Response.json({}, { headers }));
    const result = await createClient({ baseUrl: BASE, fetch: server.fetch, ...options }).send('chat');
    expect(result.replayed).toBe(replayed);
  });
});

describe('retries', () => {
  it.each<[string, ClientOptions['retry'], number]>([
    ['4 by default', { delay: 0 }, 5],
    ['a bare number as the limit', 1, 2],
    ['none with 0', 0, 1],
    ["a policy's limit", { limit: 2, delay: 0 }, 3],
  ])('retries a 503 %s', async (_, retry, attempts) => {
    const server = stub(() => status(503));
    const limits: number[] = [];
    const onEvent = (event: SendEvent) => void (event.type === 'attempt' && limits.push(event.retryLimit));
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, retry, onEvent });
    const error = await client.send('chat').catch((e: unknown) => e);
    expect((error as { status?: number }).status).toBe(503);
    expect(server.requests).toHaveLength(attempts);
    expect(new Set(limits)).toEqual(new Set([attempts - 1]));
  });

  it.each([408, 425, 429, 500, 502, 503, 504])('retries %i by default', async (code) => {
    const server = stub((_, n) => (n === 1 ? status(code) : Response.json({ ok: 1 })));
    const result = await createClient({ baseUrl: BASE, fetch: server.fetch, retry: { delay: 0 } }).send('chat');
    expect(result).toMatchObject({ data: { ok: 1 }, attempts: 2 });
  });

  it.each([400, 501, 505])('does not retry %i by default', async (code) => {
    const server = stub(() => status(code));
    await createClient({ baseUrl: BASE, fetch: server.fetch, retry: { delay: 0 } })
      .send('chat')
      .catch(() => undefined);
    expect(server.requests).toHaveLength(1);
  });

  it('retries the statuses of statusCodes instead of the defaults', async () => {
    const answers = [status(501), status(503)];
    const server = stub((_, n) => answers[n - 1] ?? Response.json({}));
    const error = await createClient({ baseUrl: BASE, fetch: server.fetch, retry: { delay: 0, statusCodes: [501] } })
      .send('chat')
      .catch((e: unknown) => e);
    expect(server.requests).toHaveLength(2);
    expect((error as { status?: number }).status).toBe(503);
  });

  it.each<[string, ClientOptions['retry'], Record<string, string>, number]>([
    ['a first backoff ceiling of 300 ms', { random: () => 0.999 }, {}, 299],
    ['a backoff capped at 10 s', { delay: 50_000, random: () => 0.5 }, {}, 5_000],
    ['the backoffLimit given', { delay: 50_000, backoffLimit: 2_000, random: () => 0.5 }, {}, 1_000],
    ['the random share given', { delay: 1_000, random: () => 0.25 }, {}, 250],
    ['Retry-After under 30 s as it says', {}, { 'Retry-After': '29' }, 29_000],
    ['Retry-After past 30 s capped at 30 s', {}, { 'Retry-After': '31' }, 30_000],
    ['Retry-After capped at the maxRetryAfter given', { maxRetryAfter: 5_000 }, { 'Retry-After': '31' }, 5_000],
  ])('waits %s', async (_, retry, headers, delay) => {
    const event = await firstEvent('retry', { retry }, () => status(503, headers));
    expect(event).toMatchObject({ reason: 'status', status: 503, delay, retryLimit: 4 });
  });
});

describe('polls', () => {
  it('ask the server to hold them 10 s by default, or pollWait', async () => {
    for (const [pollWait, prefer] of [
      [undefined, 'wait=10'],
      [3, 'wait=3'],
    ] as const) {
      const server = stub((_, n) => (n === 1 ? status(202, { Location: '/status/1' }) : Response.json({})));
      await createClient({ baseUrl: BASE, fetch: server.fetch, ...(pollWait !== undefined && { pollWait }) }).send('chat');
      expect(server.requests[1]!.headers.get('prefer')).toBe(prefer);
    }
  });

  it.each<[string, ClientOptions, Record<string, string>, number]>([
    ['1 s apart without Retry-After', {}, {}, 1_000],
    ['at least 250 ms apart whatever Retry-After says', {}, { 'Retry-After': '0' }, 250],
    ['pollInterval apart when given', { pollInterval: 400 }, {}, 400],
    ['at least minPollInterval apart when given', { minPollInterval: 300 }, { 'Retry-After': '0' }, 300],
  ])('when the server does not hold them, are %s', async (_, options, headers, delay) => {
    const event = await firstEvent('accepted', { pollWait: 0, ...options }, () =>
      status(202, { Location: '/status/1', ...headers }),
    );
    expect(event.delay).toBe(delay);
  });

  it('go to statusUrl(id) when a 202 has no Location', async () => {
    const server = stub((_, n) => (n === 1 ? status(202) : Response.json({ ok: 1 })));
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, statusUrl: (id) => `/status/${id}` });
    await client.send('chat', { requestId: 'intent-0001' });
    expect(server.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      `POST ${BASE}chat`,
      `GET ${BASE}status/intent-0001`,
    ]);
  });
});

describe('timeouts', () => {
  it('end an attempt after 30 s by default', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    let settled = false;
    const sending = createClient({ baseUrl: BASE, fetch: hanging.fetch, retry: 0 })
      .send('chat')
      .catch((e: unknown) => e)
      .finally(() => (settled = true));
    await advance(29_900);
    expect(settled).toBe(false);
    await advance(200);
    expect(isConnectionError(await sending)).toBe(true);
  });

  it('end the whole intent after 120 s by default', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const sending = createClient({ baseUrl: BASE, fetch: hanging.fetch, timeout: false })
      .send('chat')
      .catch((e: unknown) => e);
    await advance(120_100, 1_000);
    const error = await sending;
    expect(isDeadlineExceededError(error)).toBe(true);
    expect(error).toMatchObject({ totalTimeout: 120_000 });
  });
});

describe('the rest of the resolved options', () => {
  it("reads JSON and text by the content type by default, and as the client's parse says otherwise", async () => {
    const server = stub((request) =>
      request.url.endsWith('json')
        ? Response.json({ ok: 1 })
        : new Response('plain', { headers: { 'content-type': 'text/plain' } }),
    );
    const auto = createClient({ baseUrl: BASE, fetch: server.fetch });
    expect((await auto.send('json')).data).toEqual({ ok: 1 });
    expect((await auto.send('text')).data).toBe('plain');
    const text = createClient({ baseUrl: BASE, fetch: server.fetch, parse: 'text' });
    expect((await text.send('json')).data).toBe('{"ok":1}');
    expect((await text.send('json', { parse: 'json' })).data).toEqual({ ok: 1 });
  });

  it('parses JSON with parseJson, and tells onEvent what happens', async () => {
    const server = stub(() => Response.json({ ok: 1 }));
    const events: string[] = [];
    const client = createClient({
      baseUrl: BASE,
      fetch: server.fetch,
      parseJson: (text) => ({ raw: text }),
      onEvent: (event) => void events.push(event.type),
    });
    expect((await client.send('chat')).data).toEqual({ raw: '{"ok":1}' });
    expect(events).toEqual(['attempt', 'settled']);
  });

  it("stops every send with the client's signal, as an AbortError", async () => {
    const controller = new AbortController();
    const client = createClient({ baseUrl: BASE, fetch: hanging.fetch, signal: controller.signal });
    const sending = client.send('chat').catch((e: unknown) => e);
    setTimeout(() => controller.abort(new Error('page left')), 5);
    const error = await sending;
    expect(isAbortError(error)).toBe(true);
    expect((error as Error).cause).toEqual(new Error('page left'));
    expect(isAbortError(await client.send('chat').catch((e: unknown) => e))).toBe(true);
  });

  it('hands the other ky options to ky: headers reach the request', async () => {
    const server = stub(() => Response.json({}));
    await createClient({ baseUrl: BASE, fetch: server.fetch, headers: { 'x-app': 'web' } }).send('chat');
    expect(server.requests[0]!.headers.get('x-app')).toBe('web');
  });
});
