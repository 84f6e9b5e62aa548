/**
 * The error a failed send rejects with, from what ky threw (src/client/send/to-send-error.ts):
 * an error status keeps its body as `data`, and as `problem` only when it is an object
 * with a numeric `status` (an empty, `null` or other body is no problem); the
 * `request-id-reused` code means RequestIdReusedError only on a 422; an attempt's own
 * timeout is a ConnectionError while the deadline has not passed, and a network failure
 * stays a ConnectionError even past it. The server is a stub `fetch`.
 */

import {
  createClient,
  isConnectionError,
  isDeadlineExceededError,
  isRequestIdReusedError,
  isResponseError,
  type ResponseError,
} from 'answer-once';
import { afterEach, describe, expect, it, vi } from 'vitest';

const BASE = 'http://127.0.0.1:9/';

afterEach(() => {
  vi.useRealTimers();
});

/** A client whose every request gets `answer` (called with the request's signal). */
function clientAnswering(answer: (signal: AbortSignal) => Promise<Response> | Response, extra = {}) {
  let requests = 0;
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    requests += 1;
    // ky hands over its own Request, held while in flight: a copy's signal would follow it only while held.
    return answer(init?.signal ?? (input instanceof Request ? input : new Request(input, init)).signal);
  }) as typeof globalThis.fetch;
  const client = createClient({ baseUrl: BASE, fetch, retry: { limit: 0 }, ...extra });
  return { client, requests: () => requests };
}

const fail = (client: ReturnType<typeof createClient>) =>
  client.send('chat', { json: {} }).catch((e: unknown) => e) as Promise<ResponseError>;

describe('send errors from an error status', () => {
  it('keeps an empty body as no data and no problem', async () => {
    const { client } = clientAnswering(() => new Response(null, { status: 400, statusText: 'Bad Request' }));
    const error = await fail(client);
    expect(isResponseError(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, data: undefined, problem: undefined });
    expect(error.message).toBe('answer-once: the server answered 400 (Bad Request).');
  });

  it('keeps a JSON null body as data, and no problem', async () => {
    const { client } = clientAnswering(() => Response.json(null, { status: 400 }));
    const error = await fail(client);
    expect(isResponseError(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, data: null, problem: undefined });
    expect(error.message).toBe('answer-once: the server answered 400.'); // no status text, no detail: no "()"
  });

  it('takes an object as the problem only when its status is a number', async () => {
    for (const data of [{ detail: 'no status' }, { status: '400', detail: 'a string status' }]) {
      const { client } = clientAnswering(() => Response.json(data, { status: 400, statusText: 'Bad Request' }));
      const error = await fail(client);
      expect(error).toMatchObject({ status: 400, data, problem: undefined });
      expect(error.message).toBe('answer-once: the server answered 400 (Bad Request).');
    }
    const problem = { type: 'about:blank', title: 'Bad', status: 400, detail: 'a problem' };
    const { client } = clientAnswering(() => Response.json(problem, { status: 400 }));
    expect(await fail(client)).toMatchObject({ problem, message: 'answer-once: the server answered 400 (a problem).' });
  });

  it('reads the request-id-reused code as RequestIdReusedError only on a 422', async () => {
    const problem = (status: number) => ({ type: 'about:blank', title: 'Reused', status, code: 'request-id-reused' });
    const other = await fail(clientAnswering(() => Response.json(problem(400), { status: 400 })).client);
    expect(isResponseError(other)).toBe(true);
    expect(isRequestIdReusedError(other)).toBe(false);
    expect(other).toMatchObject({ name: 'ResponseError', status: 400 });
    const reused = await fail(clientAnswering(() => Response.json(problem(422), { status: 422 })).client);
    expect(isRequestIdReusedError(reused)).toBe(true);
    expect(reused).toMatchObject({ status: 422, retryable: false });
  });
});

describe('send errors without an answer', () => {
  it("makes an attempt's own timeout before the deadline a ConnectionError, not a DeadlineExceededError", async () => {
    const never = (signal: AbortSignal) =>
      new Promise<Response>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
    const { client, requests } = clientAnswering(never, { timeout: 30, pollWait: 0, totalTimeout: 60_000 });
    const error = await fail(client);
    expect(isConnectionError(error)).toBe(true);
    expect(isDeadlineExceededError(error)).toBe(false);
    expect((error.cause as Error).name).toBe('TimeoutError');
    expect(requests()).toBe(1);
  });

  it('keeps a network failure that comes past the deadline a ConnectionError', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { client, requests } = clientAnswering(
      () => {
        // The attempt fails once the deadline has passed.
        vi.setSystemTime(Date.now() + 5_000);
        throw new TypeError('fetch failed');
      },
      { retry: { limit: 3, delay: 0 }, totalTimeout: 1_000 },
    );
    const error = await fail(client);
    expect(isConnectionError(error)).toBe(true);
    expect(isDeadlineExceededError(error)).toBe(false);
    expect((error.cause as Error).name).toBe('NetworkError');
    // Past the deadline, no retry follows.
    expect(requests()).toBe(1);
  });
});
