/**
 * A small in-process fake of the answer-once protocol for client specs, over msw:
 * answers stored by ID, 202 while the work runs, a status route, the `intent-failed`
 * problem, 422 on a reused ID, and seeded response loss after the work ran. It is NOT
 * the reference server (answer-once/server); it exists so the client can be specified
 * on its own.
 */
import { HttpResponse, http, type JsonBodyType } from 'msw';

export const ORIGIN = 'http://127.0.0.1:4010';

export interface ProtocolFakeOptions {
  /** The work behind the send route; its result is the answer. Default: echoes the body. */
  work?: (body: unknown, requestId: string | undefined) => unknown;
  /** Share of responses dropped (`HttpResponse.error()`) AFTER the work ran. */
  loseRate?: number;
  /** Random source for the loss, in `[0, 1)`; pass a seeded one. */
  random?: () => number;
}

type Record =
  | { state: 'processing'; body: string }
  | { state: 'completed'; body: string; answer: unknown }
  | { state: 'failed'; body: string };

export function problem(status: number, code: string, init: ResponseInit = {}): Response {
  return HttpResponse.json(
    { type: `https://answer-once.dev/problems/${code}`, title: code, status, code },
    { ...init, status, headers: { 'content-type': 'application/problem+json', ...init.headers } },
  );
}

/** The ID a request carries, from `X-Request-Id` or a quoted `Idempotency-Key`. */
export function idOf(request: Request): string | undefined {
  const raw = request.headers.get('x-request-id') ?? request.headers.get('idempotency-key');
  return raw === null ? undefined : raw.replace(/^"(.*)"$/, '$1');
}

export function createProtocolFake(options: ProtocolFakeOptions = {}) {
  const { work = (body: unknown) => ({ echo: body }), loseRate = 0, random = Math.random } = options;
  const records = new Map<string, Record>();
  const stats = { workRuns: 0, lost: 0, requests: 0 };
  const lose = () => loseRate > 0 && random() < loseRate;
  const answer = (value: unknown, replayed: boolean) => {
    if (lose()) {
      stats.lost += 1;
      return HttpResponse.error();
    }
    return HttpResponse.json(value as JsonBodyType, { headers: replayed ? { 'X-Idempotent-Replayed': 'true' } : {} });
  };

  async function run(id: string | undefined, text: string) {
    stats.workRuns += 1;
    return work(text === '' ? undefined : JSON.parse(text), id);
  }

  const handlers = [
    http.post(`${ORIGIN}/chat`, async ({ request }) => {
      stats.requests += 1;
      const id = idOf(request);
      const text = await request.text();
      if (id === undefined) return answer(await run(undefined, text), false);
      const record = records.get(id);
      if (record && record.body !== text) return problem(422, 'request-id-reused');
      if (record?.state === 'completed') return answer(record.answer, true);
      if (record?.state === 'processing') {
        return new HttpResponse(null, { status: 202, headers: { Location: `/status/${id}`, 'Retry-After': '0' } });
      }
      records.set(id, { state: 'processing', body: text });
      try {
        const value = await run(id, text);
        records.set(id, { state: 'completed', body: text, answer: value });
        return answer(value, false);
      } catch {
        records.set(id, { state: 'failed', body: text });
        return problem(500, 'intent-failed');
      }
    }),
    http.get(`${ORIGIN}/status/:id`, ({ params }) => {
      stats.requests += 1;
      const record = records.get(String(params.id));
      if (!record) return problem(404, 'intent-not-found');
      if (record.state === 'failed') return problem(500, 'intent-failed');
      if (record.state === 'processing') {
        return new HttpResponse(null, { status: 202, headers: { 'Retry-After': '0' } });
      }
      return answer(record.answer, true);
    }),
  ];

  return { handlers, records, stats };
}

/** Starts one msw server for the calling spec file; unhandled requests fail the test. */
export async function useMsw() {
  const { setupServer } = await import('msw/node');
  const { afterAll, afterEach, beforeAll } = await import('vitest');
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

/**
 * Advances fake timers by `ms` in `step`s, letting real I/O (msw's interceptor) run
 * between steps, so a response is never overtaken by a timer that fires "later".
 */
export async function advance(ms: number, step = 50): Promise<void> {
  const { vi } = await import('vitest');
  for (let elapsed = 0; elapsed < ms; elapsed += step) {
    await vi.advanceTimersByTimeAsync(Math.min(step, ms - elapsed));
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
