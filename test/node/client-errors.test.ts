import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  AnswerOnceError,
  createClient,
  RequestIdReusedError,
  ResponseError,
  type ClientOptions,
  type SendOptions,
} from 'answer-once';
import { createProtocolFake, ORIGIN, problem, useMsw } from '../support/protocol-fake.js';

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
    expect(error).toMatchObject({ name: 'RequestIdReusedError', status: 422, retryable: false, requestId: 'reused-id-0001' });
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

  it('lets an error thrown by the caller\'s own ky hook through unchanged', async () => {
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

  it('treats a 422 without the reuse code as a plain final ResponseError', async () => {
    server.use(http.post(`${ORIGIN}/chat`, () => problem(422, 'payload-too-large')));
    const error = await createClient({ baseUrl: ORIGIN }).send('chat', { json: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseError);
    expect(error).not.toBeInstanceOf(RequestIdReusedError);
  });
});

describe('createClient options', () => {
  it.each<[string, ClientOptions]>([
    ['headerName', { headerName: 'X Request' }],
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
    expect(() => createClient(options)).toThrow(`\`${name}\``);
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
    const error = await createClient({ baseUrl: ORIGIN }).send('chat', options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toContain(`\`${name}\``);
    expect(requests).toHaveLength(0);
  });
});
