import {
  AnswerOnceError,
  type ClientOptions,
  createClient,
  isAbortError,
  isAnswerOnceError,
  isConnectionError,
  isDeadlineExceededError,
  isIntentFailedError,
  isProtocolError,
  isRequestIdReusedError,
  isResponseError,
  isUnreplayableBodyError,
  ProtocolError,
  RequestIdReusedError,
  ResponseError,
  type SendOptions,
} from 'answer-once';
import ky from 'ky';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { createProtocolFake, ORIGIN, problem, useMsw } from '../../support/protocol-fake.js';

const server = await useMsw();

describe('client errors', () => {
  it('rejects a reused ID with another body as RequestIdReusedError carrying the problem details, never retried', async () => {
    const fake = createProtocolFake();
    server.use(...fake.handlers);
    const client = createClient({ baseUrl: ORIGIN, retry: { delay: 0 } });
    await client.send('chat', { json: { content: 'first' }, requestId: 'reused-id-0001' });
    const before = fake.stats.requests;
    const error = (await client
      .send('chat', { json: { content: 'something else' }, requestId: 'reused-id-0001' })
      .catch((e: unknown) => e)) as RequestIdReusedError;
    expect(error).toBeInstanceOf(RequestIdReusedError);
    expect(error).toBeInstanceOf(AnswerOnceError);
    expect(error).toMatchObject({
      name: 'RequestIdReusedError',
      status: 422,
      retryable: false,
      requestId: 'reused-id-0001',
    });
    expect(error.problem).toMatchObject({ code: 'request-id-reused', status: 422 });
    expect(error.message).toMatch(/already used for a different request/);
    expect((error.cause as Error).name).toBe('HTTPError');
    expect(fake.stats.requests - before).toBe(1);
    expect(fake.stats.workRuns).toBe(1);
  });

  it('keeps the problem details and the response of a final error status', async () => {
    server.use(
      http.post(`${ORIGIN}/chat`, () =>
        HttpResponse.json(
          { type: 'about:blank', title: 'Forbidden', status: 403, detail: 'This conversation is not yours.' },
          { status: 403, headers: { 'content-type': 'application/problem+json' } },
        ),
      ),
    );
    const error = (await createClient({ baseUrl: ORIGIN })
      .send('chat', { json: {} })
      .catch((e: unknown) => e)) as ResponseError;
    expect(error).toBeInstanceOf(ResponseError);
    expect(error.message).toBe('answer-once: the server answered 403 (This conversation is not yours.).');
    expect(error.problem?.detail).toBe('This conversation is not yours.');
    expect(error.response.status).toBe(403);
    expect(error.attempts).toBe(1);
  });

  it("lets an error thrown by the caller's own ky hook through unchanged", async () => {
    server.use(http.post(`${ORIGIN}/chat`, () => HttpResponse.json({})));
    const own = new Error('no token');
    const client = createClient({
      baseUrl: ORIGIN,
      hooks: {
        beforeRequest: [
          () => {
            throw own;
          },
        ],
      },
    });
    await expect(client.send('chat', { json: {} })).rejects.toBe(own);
  });

  it('sends once after a 500 store-failed (a store no retry cures) and rejects with it, not retryable', async () => {
    let requests = 0;
    server.use(
      http.post(`${ORIGIN}/chat`, () => {
        requests += 1;
        return problem(500, 'store-failed');
      }),
    );
    const error = (await createClient({ baseUrl: ORIGIN, retry: { delay: 0 } })
      .send('chat', { json: {} })
      .catch((e: unknown) => e)) as ResponseError;
    expect(error).toBeInstanceOf(ResponseError);
    expect(error).toMatchObject({ status: 500, retryable: false, attempts: 1 });
    expect(error.problem?.code).toBe('store-failed');
    expect(requests).toBe(1);
  });

  it('treats a 422 without the reuse code as a plain final ResponseError', async () => {
    server.use(http.post(`${ORIGIN}/chat`, () => problem(422, 'payload-too-large')));
    const error = await createClient({ baseUrl: ORIGIN })
      .send('chat', { json: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseError);
    expect(error).not.toBeInstanceOf(RequestIdReusedError);
  });
});

describe('createClient options', () => {
  it.each<[string, ClientOptions]>([
    ['headerName', { headerName: 'X Request' as never }],
    ['headerName', { headerName: 'X-Idempotency-Key' as never }],
    ['minPollInterval', { minPollInterval: 0 }],
    ['replayedHeader', { replayedHeader: '' }],
    ['retry', { retry: 'often' as never }],
    ['retry.limit', { retry: { limit: -1 } }],
    ['retry.limit', { retry: 1.5 }],
    ['retry.delay', { retry: { delay: Number.NaN } }],
    ['retry.backoffLimit', { retry: { backoffLimit: -5 } }],
    ['retry.maxRetryAfter', { retry: { maxRetryAfter: Infinity } }],
    ['retry.statusCodes', { retry: { statusCodes: [200] } }],
    ['retry.random', { retry: { random: 0.5 as never } }],
    ['timeout', { timeout: 0 }],
    ['totalTimeout', { totalTimeout: 0 }],
    ['pollWait', { pollWait: 30, timeout: 10_000 }],
    ['pollInterval', { pollInterval: -1 }],
    ['statusUrl', { statusUrl: '/status' as never }],
    ['storage', { storage: {} as never }],
    ['onEvent', { onEvent: 'log' as never }],
    ['parse', { parse: 'xml' as never }],
    ['ky', { ky: {} as never }],
  ])('throws a TypeError naming `%s` when it is invalid', (name, options) => {
    expect(() => createClient(options)).toThrow(TypeError);
    expect(() => createClient(options)).toThrow(`answer-once: \`${name}\` must be `);
  });

  it('takes only the two ID headers a server reads, in any case, and says so', () => {
    expect(() => createClient({ headerName: 'X-Correlation-Id' as never })).toThrow(
      "answer-once: `headerName` must be 'X-Request-Id' or 'Idempotency-Key'; got \"X-Correlation-Id\".",
    );
    expect(() => createClient({ headerName: 'idempotency-key' as never })).not.toThrow();
  });

  it.each<[string, SendOptions]>([
    ['requestId', { requestId: 'short' }],
    ['requestId', { requestId: 'has spaces in it' }],
    ['intentKey', { intentKey: '' }],
    ['signal', { signal: {} as never }],
    ['onEvent', { onEvent: 1 as never }],
    ['method', { method: 'PO ST' }],
    ['json', { json: {}, body: 'x' }],
  ])('rejects a send whose `%s` is invalid with a TypeError, before any request', async (name, options) => {
    const requests: Request[] = [];
    server.use(http.all(`${ORIGIN}/*`, ({ request }) => (requests.push(request), HttpResponse.json({}))));
    const error = await createClient({ baseUrl: ORIGIN })
      .send('chat', options)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toContain(`\`${name}\``);
    expect(requests).toHaveLength(0);
  });
});

describe('client errors: guards, hooks and the echoed ID', () => {
  it("tells every error class apart with is… guards that hold for the other build's copy too", async () => {
    server.use(http.post(`${ORIGIN}/chat`, () => problem(503, 'intent-failed')));
    const error = await createClient({ baseUrl: ORIGIN, retry: 0 })
      .send('chat', { json: {} })
      .catch((e: unknown) => e);
    expect([isAnswerOnceError(error), isResponseError(error), isIntentFailedError(error)]).toEqual([true, true, true]);
    expect([isRequestIdReusedError(error), isConnectionError(error), isAbortError(error)]).toEqual([false, false, false]);
    // The same error made by the CJS build (or another copy): another class, the same brand and name.
    const foreign = Object.assign(new Error('x'), { name: 'IntentFailedError', [Symbol.for('answer-once.error')]: true });
    expect(foreign).not.toBeInstanceOf(AnswerOnceError);
    expect([isAnswerOnceError(foreign), isResponseError(foreign), isIntentFailedError(foreign)]).toEqual([true, true, true]);
    // A name alone is not enough: an app's own error called "ConnectionError" is not ours.
    expect(isConnectionError(Object.assign(new Error('x'), { name: 'ConnectionError' }))).toBe(false);
    for (const guard of [isDeadlineExceededError, isUnreplayableBodyError, isProtocolError]) {
      expect([null, undefined, 'ProtocolError', error].map(guard)).toEqual([false, false, false, false]);
    }
  });

  it('rejects with a retryable AnswerOnceError saying a hook stopped the send when a beforeRetry hook returns ky.stop', async () => {
    let calls = 0;
    server.use(http.post(`${ORIGIN}/chat`, () => (calls++, new HttpResponse(null, { status: 503 }))));
    const client = createClient({ baseUrl: ORIGIN, retry: { delay: 0 }, hooks: { beforeRetry: [() => ky.stop] } });
    const error = await client.send('chat', { json: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnswerOnceError);
    expect(error).toMatchObject({ name: 'AnswerOnceError', retryable: true, attempts: 1 });
    expect((error as Error).message).toBe('answer-once: a ky hook stopped the send before an answer.');
    expect(calls).toBe(1);
  });

  it('rejects an answer echoing another X-Request-Id with a ProtocolError, never retried', async () => {
    let calls = 0;
    server.use(
      http.post(
        `${ORIGIN}/chat`,
        () => (calls++, HttpResponse.json({ answer: 'theirs' }, { headers: { 'X-Request-Id': 'someone-elses-id' } })),
      ),
    );
    const error = await createClient({ baseUrl: ORIGIN })
      .send('chat', { json: {} })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ retryable: false, attempts: 1 });
    expect((error as Error).message).toMatch(/answered for request ID "someone-elses-id", not this intent's/);
    expect(calls).toBe(1);
  });

  it('accepts an answer echoing its own ID, whichever header carried it', async () => {
    server.use(
      http.post(`${ORIGIN}/chat`, ({ request }) => {
        const sent = request.headers.get('Idempotency-Key')!.replaceAll('"', '');
        return HttpResponse.json({ ok: true }, { headers: { 'X-Request-Id': sent } });
      }),
    );
    const client = createClient({ baseUrl: ORIGIN, headerName: 'Idempotency-Key' });
    await expect(client.send('chat', { json: {} })).resolves.toMatchObject({ data: { ok: true } });
  });
});
