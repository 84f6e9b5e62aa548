import {
  type AbortError,
  ConnectionError,
  createClient,
  DeadlineExceededError,
  isResponseError,
  ResponseError,
  type SendEvent,
} from 'answer-once';
import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { advance, idOf, ORIGIN, problem, useMsw } from '../support/protocol-fake.js';

const server = await useMsw();

/** Answers with `script` in order (the last one repeats); records the ID each attempt carried. */
function scripted(script: (() => Response | Promise<Response>)[]) {
  const ids: (string | undefined)[] = [];
  server.use(
    http.post(`${ORIGIN}/chat`, ({ request }) => {
      ids.push(idOf(request));
      return script[Math.min(ids.length, script.length) - 1]!();
    }),
  );
  return ids;
}

const ok = () => HttpResponse.json({ answer: 42 });
const status =
  (code: number, headers: Record<string, string> = {}) =>
  () =>
    new HttpResponse(null, { status: code, headers });

afterEach(() => {
  vi.useRealTimers();
});

describe('client retries', () => {
  it.each([408, 425, 429, 500, 502, 503, 504])('retries %i with the same ID until the answer comes', async (code) => {
    const ids = scripted([status(code), status(code), ok]);
    const client = createClient({ baseUrl: ORIGIN, retry: { delay: 0 } });
    const result = await client.send('chat', { json: {} });
    expect(result.data).toEqual({ answer: 42 });
    expect(result.attempts).toBe(3);
    expect(ids).toEqual([result.requestId, result.requestId, result.requestId]);
  });

  it('retries a lost response (network error) with the same ID', async () => {
    const ids = scripted([() => HttpResponse.error(), ok]);
    const result = await createClient({ baseUrl: ORIGIN, retry: { delay: 0 } }).send('chat', { json: {} });
    expect(ids).toEqual([result.requestId, result.requestId]);
  });

  it('retries an attempt that times out, with the same ID', async () => {
    const ids = scripted([() => new Promise<Response>((resolve) => setTimeout(() => resolve(ok()), 500)), ok]);
    const client = createClient({ baseUrl: ORIGIN, timeout: 100, pollWait: 0, retry: { delay: 0 } });
    const reasons: string[] = [];
    const result = await client.send('chat', { json: {}, onEvent: (e) => e.type === 'retry' && reasons.push(e.reason) });
    expect(reasons).toEqual(['timeout']);
    expect(ids).toEqual([result.requestId, result.requestId]);
  });

  it('retries 409 "request still in progress" (IETF draft) with the same ID', async () => {
    const ids = scripted([() => problem(409, 'request-in-progress'), ok]);
    const reasons: string[] = [];
    const result = await createClient({ baseUrl: ORIGIN, retry: { delay: 0 } }).send('chat', {
      json: {},
      onEvent: (e) => e.type === 'retry' && reasons.push(e.reason),
    });
    expect(reasons).toEqual(['in-progress']);
    expect(ids).toEqual([result.requestId, result.requestId]);
  });

  it('does not retry a 409 whose problem code names another conflict, and says it is not retryable', async () => {
    const ids = scripted([() => problem(409, 'edit-conflict'), ok]);
    const error = (await createClient({ baseUrl: ORIGIN, retry: { delay: 0 } })
      .send('chat', { json: {} })
      .catch((e: unknown) => e)) as ResponseError;
    expect(error).toBeInstanceOf(ResponseError);
    expect(error).toMatchObject({ status: 409, retryable: false, attempts: 1 });
    expect(ids).toHaveLength(1);
  });

  it.each([400, 401, 403, 404, 422])('never retries %i, even when listed in retry.statusCodes', async (code) => {
    const ids = scripted([status(code), ok]);
    const client = createClient({ baseUrl: ORIGIN, retry: { delay: 0, statusCodes: [code, 503] } });
    const error = await client.send('chat', { json: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseError);
    expect((error as ResponseError).status).toBe(code);
    expect((error as ResponseError).retryable).toBe(false);
    expect(ids).toHaveLength(1);
  });

  it('sends a request whose body did not arrive whole (400 request-body-incomplete) again, same ID and body', async () => {
    const sent: [string | undefined, string][] = [];
    const answers = [() => problem(400, 'request-body-incomplete'), ok];
    server.use(
      http.post(`${ORIGIN}/chat`, async ({ request }) => {
        sent.push([idOf(request), await request.text()]);
        return answers[Math.min(sent.length, answers.length) - 1]!();
      }),
    );
    const reasons: string[] = [];
    const result = await createClient({ baseUrl: ORIGIN, retry: { delay: 0 } }).send('chat', {
      json: { question: 'hi' },
      onEvent: (e) => e.type === 'retry' && reasons.push(e.reason),
    });
    expect(result.data).toEqual({ answer: 42 });
    expect(reasons).toEqual(['request-body-incomplete']);
    expect(sent).toEqual([
      [result.requestId, '{"question":"hi"}'],
      [result.requestId, '{"question":"hi"}'],
    ]);
  });

  it('rejects a body that never arrives whole, past retry.limit, with a retryable ResponseError naming the code', async () => {
    const ids = scripted([() => problem(400, 'request-body-incomplete')]);
    const error = await createClient({ baseUrl: ORIGIN, retry: { limit: 1, delay: 0 } })
      .send('chat', { json: {} })
      .catch((e: unknown) => e);
    expect(isResponseError(error) && error.problem?.code === 'request-body-incomplete').toBe(true);
    expect(error).toMatchObject({ name: 'ResponseError', status: 400, retryable: true, attempts: 2 });
    expect(ids).toHaveLength(2);
  });

  it('retries a POST only because the key makes it safe (plain ky would not)', async () => {
    const ids = scripted([status(503), ok]);
    const { default: ky } = await import('ky');
    await expect(ky.post(`${ORIGIN}/chat`, { json: {}, retry: { limit: 3, delay: () => 0 } })).rejects.toThrow(/503/);
    expect(ids).toEqual([undefined]);
    ids.length = 0;
    await createClient({ ky, baseUrl: ORIGIN, retry: { delay: 0 } }).send('chat', { json: {} });
    expect(ids).toHaveLength(2);
  });

  it('stops after retry.limit retries and says the failure is retryable', async () => {
    const ids = scripted([status(503)]);
    const client = createClient({ baseUrl: ORIGIN, retry: { limit: 2, delay: 0 } });
    const error = (await client.send('chat', { json: {} }).catch((e: unknown) => e)) as ResponseError;
    expect(error).toBeInstanceOf(ResponseError);
    expect(error.retryable).toBe(true);
    expect(error.attempts).toBe(3);
    expect(ids).toHaveLength(3);
    expect(new Set(ids)).toEqual(new Set([error.requestId]));
  });

  it("gives up on an unreachable server with a ConnectionError that keeps ky's error as cause", async () => {
    scripted([() => HttpResponse.error()]);
    const client = createClient({ baseUrl: ORIGIN, retry: { limit: 1, delay: 0 } });
    const error = (await client.send('chat', { json: {} }).catch((e: unknown) => e)) as ConnectionError;
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error.attempts).toBe(2);
    expect((error.cause as Error).name).toBe('NetworkError');
  });

  it('backs off exponentially with full jitter, capped by backoffLimit', async () => {
    scripted([status(500)]);
    const delays: number[] = [];
    const client = createClient({
      baseUrl: ORIGIN,
      retry: { limit: 5, delay: 1, backoffLimit: 8, random: () => 0.999 },
    });
    await client
      .send('chat', { json: {}, onEvent: (e) => e.type === 'retry' && delays.push(e.delay) })
      .catch(() => undefined);
    // ceilings 1, 2, 4, 8, 8 (capped); random 0.999 takes just under each ceiling
    expect(delays).toEqual([0, 1, 3, 7, 7]);

    const halves: number[] = [];
    const half = createClient({ baseUrl: ORIGIN, retry: { limit: 3, delay: 10, random: () => 0.5 } });
    await half.send('chat', { json: {}, onEvent: (e) => e.type === 'retry' && halves.push(e.delay) }).catch(() => 0);
    expect(halves).toEqual([5, 10, 20]);
  });

  it('waits the Retry-After a server asks for (seconds), then retries', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const ids = scripted([status(503, { 'Retry-After': '3' }), ok]);
    const client = createClient({ baseUrl: ORIGIN, retry: { delay: 0 } });
    const sending = client.send('chat', { json: {} });
    await advance(2_900);
    expect(ids).toHaveLength(1);
    await advance(200);
    await expect(sending).resolves.toMatchObject({ attempts: 2 });
    expect(ids).toHaveLength(2);
  });

  it('honours a Retry-After HTTP-date and caps any Retry-After at maxRetryAfter', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: Date.parse('2026-11-30T12:00:00Z') });
    scripted([status(429, { 'Retry-After': 'Mon, 30 Nov 2026 12:00:02 GMT' }), status(503, { 'Retry-After': '3600' }), ok]);
    const delays: number[] = [];
    const client = createClient({ baseUrl: ORIGIN, retry: { maxRetryAfter: 5_000 } });
    const sending = client.send('chat', { json: {}, onEvent: (e) => e.type === 'retry' && delays.push(e.delay) });
    await advance(7_100);
    await expect(sending).resolves.toMatchObject({ attempts: 3 });
    expect(delays).toEqual([2_000, 5_000]);
  });

  it.each(['1.5', '-5', '0x10', 'soon'])('waits its own backoff, not 0, when Retry-After is %j', async (value) => {
    scripted([status(503, { 'Retry-After': value }), ok]);
    const delays: number[] = [];
    const client = createClient({ baseUrl: ORIGIN, retry: { delay: 40, random: () => 0.5 } });
    await client.send('chat', { json: {}, onEvent: (e) => e.type === 'retry' && delays.push(e.delay) });
    expect(delays).toEqual([20]);
  });

  it('stops at totalTimeout, counting every attempt and backoff, with a DeadlineExceededError', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    const ids = scripted([status(503, { 'Retry-After': '4' })]);
    const client = createClient({ baseUrl: ORIGIN, totalTimeout: 10_000, retry: { limit: 100 } });
    const sending = client.send('chat', { json: {} }).catch((e: unknown) => e);
    await advance(10_100);
    const error = await sending;
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect((error as DeadlineExceededError).retryable).toBe(true);
    expect(((error as DeadlineExceededError).cause as Error).name).toBe('TimeoutError'); // ky's, for the last attempt
    expect(ids).toHaveLength(3); // t = 0, 4 s, 8 s; the next one would start after the deadline
  });

  it('stops retrying at once when the signal aborts', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const ids = scripted([status(503, { 'Retry-After': '10' })]);
    const controller = new AbortController();
    const events: SendEvent['type'][] = [];
    const sending = createClient({ baseUrl: ORIGIN })
      .send('chat', { json: {}, signal: controller.signal, onEvent: (e) => events.push(e.type) })
      .catch((e: unknown) => e);
    await advance(1_000);
    controller.abort(new Error('user left'));
    const error = (await sending) as Error;
    expect(error.name).toBe('AbortError');
    expect((error as AbortError).retryable).toBe(true); // the server may have it: sending again runs nothing twice
    expect((error.cause as Error).message).toBe('user left');
    await advance(60_000);
    expect(ids).toHaveLength(1);
    expect(events).toEqual(['attempt', 'retry', 'settled']);
  });
});
