import { createIdempotentMock, type IdempotentMockOptions } from 'answer-once/msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../support/sleep.js';

const URL_ = 'https://api.test/api/chat';
const ID = 'req-0000000001';
const server = setupServer();

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

interface Work {
  started: number;
  completed: number;
  aborted: number;
}

/** Mounts a mock whose work takes `ms` and honours its signal; counts starts and ends. */
function mount(ms = 0, options: Partial<IdempotentMockOptions> = {}) {
  const work: Work = { started: 0, completed: 0, aborted: 0 };
  const mock = createIdempotentMock({
    url: URL_,
    leaseMs: 100,
    handler: async (request, { signal }) => {
      work.started += 1;
      const { question } = (await request.json()) as { question: string };
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, ms);
          signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
        });
      } catch (error) {
        work.aborted += 1;
        throw error;
      }
      work.completed += 1;
      return Response.json({ answer: `echo: ${question}`, n: work.completed });
    },
    ...options,
  });
  server.use(...mock.handlers);
  return { mock, work };
}

const send = (id = ID, init: RequestInit = {}) =>
  fetch(URL_, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': id },
    body: JSON.stringify({ question: 'hi' }),
    ...init,
  });

describe('createIdempotentMock', () => {
  it('serves the reference server to fetch: a first run, then a replay', async () => {
    const { mock, work } = mount();
    const first = await send();
    expect(await first.json()).toEqual({ answer: 'echo: hi', n: 1 });
    const again = await send();
    expect(again.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(await again.json()).toEqual({ answer: 'echo: hi', n: 1 });
    expect(work.completed).toBe(1);
    expect(mock.stats).toMatchObject({ requests: 2, runs: 1 });
  });

  it('loses a response after the work ran: the client sees a network error, the retry gets the stored answer', async () => {
    const { mock, work } = mount();
    mock.inject({ type: 'lose-response' });
    await expect(send()).rejects.toThrow(TypeError);
    expect(work.completed).toBe(1);
    const retry = await send();
    expect(retry.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(await retry.json()).toEqual({ answer: 'echo: hi', n: 1 });
    expect(mock.stats.faults['lose-response']).toBe(1);
  });

  it('fails a request before the work with the injected status, touching nothing', async () => {
    const { mock, work } = mount();
    mock.inject({ type: 'fail-before', status: 503, retryAfterSeconds: 2 });
    const failed = await send();
    expect(failed.status).toBe(503);
    expect(failed.headers.get('Retry-After')).toBe('2');
    expect(work.started).toBe(0);
    const retry = await send();
    expect(retry.headers.get('X-Idempotent-Replayed')).toBeNull();
    expect(work.completed).toBe(1);
  });

  it('delays a request before the server sees it', async () => {
    const { mock } = mount();
    mock.inject({ type: 'delay', ms: 120 });
    const start = performance.now();
    expect((await send()).status).toBe(200);
    expect(performance.now() - start).toBeGreaterThanOrEqual(115);
  });

  it('crashes the worker mid-work: the work is aborted, its lease lapses, and the next request takes over', async () => {
    // A lease long enough that a loaded machine still sends the second request inside it.
    const { mock, work } = mount(50, { leaseMs: 1_000 });
    mock.inject({ type: 'crash', afterMs: 10 });
    await expect(send()).rejects.toThrow(TypeError);
    expect(work).toEqual({ started: 1, completed: 0, aborted: 1 });
    const meanwhile = await send();
    expect(meanwhile.status).toBe(202); // the dead worker's lease has not lapsed yet
    await sleep(1_050);
    const taken = await send();
    expect(taken.status).toBe(200);
    expect(work).toEqual({ started: 2, completed: 1, aborted: 1 });
    expect(mock.stats).toMatchObject({ runs: 2, faults: { crash: 1 } });
  });

  it('lets a decider pick faults per request, knowing the intent and the attempt', async () => {
    const { mock, work } = mount(0, {
      faults: (_request, { nth, statusRoute }) => (nth === 1 && !statusRoute ? { type: 'lose-response' } : undefined),
    });
    for (const id of ['req-0000000001', 'req-0000000002']) {
      await expect(send(id)).rejects.toThrow(TypeError);
      expect((await send(id)).headers.get('X-Idempotent-Replayed')).toBe('true');
    }
    expect(work.completed).toBe(2);
    expect(mock.stats.faults['lose-response']).toBe(2);
  });

  it('serves the status route with long-polls', async () => {
    const { work } = mount(150);
    const running = send();
    for (let waited = 0; work.started === 0 && waited < 2_000; waited += 1) await sleep(1);
    const polled = await fetch(`https://api.test/api/status/${ID}`, {
      headers: { 'X-Request-Id': ID, Prefer: 'wait=5' },
    });
    expect(polled.status).toBe(200);
    expect(polled.headers.get('Preference-Applied')).toBe('wait=5');
    expect(await polled.json()).toEqual(await (await running).json());
  });

  it('names a bad fault and a bad option', () => {
    const { mock } = mount();
    expect(() => mock.inject({ type: 'explode' } as never)).toThrow(/type/);
    expect(() => mock.inject({ type: 'fail-before', status: 200 })).toThrow(/status/);
    expect(() => mock.inject({ type: 'fail-before', retryAfterSeconds: Number.NaN })).toThrow(/`retryAfterSeconds`/);
    expect(() => createIdempotentMock({ url: '/relative', handler: () => new Response() })).toThrow(/`url`/);
    expect(() => createIdempotentMock({ url: URL_ } as IdempotentMockOptions)).toThrow(/`handler`/);
  });
});
