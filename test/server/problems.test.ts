/**
 * PROTOCOL.md § 9: every error the handler answers is an RFC 9457 problem, never cached,
 * naming the intent (body `requestId` and `X-Request-Id`) exactly when it is known; and
 * every code of the table comes out of the server, at its row's status.
 */

import { encodeKey, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { PROBLEMS, type ProblemCode } from '../../src/core/problems.js';
import {
  type Call,
  chatApp,
  chatRequest,
  gate,
  recordOps,
  statusRequest,
  until,
  viewOf,
} from '../support/server-support.js';

const ID = 'req-0000000001';

async function problemOf(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get('Content-Type')).toBe('application/problem+json');
  expect(response.headers.get('Cache-Control')).toBe('no-store');
  return (await response.json()) as Record<string, unknown>;
}

describe('createIdempotencyHandler: problem answers', () => {
  it('answers an unknown ID on the status route 404 intent-not-found, no-store, naming the ID in body and header', async () => {
    const response = await chatApp().handle(statusRequest(ID));
    expect(response.status).toBe(404);
    expect(response.headers.get('X-Request-Id')).toBe(ID);
    expect(await problemOf(response)).toEqual({
      type: 'https://answer-once.dev/problems/intent-not-found',
      title: expect.any(String),
      status: 404,
      code: 'intent-not-found',
      requestId: ID,
    });
  });

  it('names no request ID, in body or header, when the request sent none', async () => {
    const response = await chatApp().handle(chatRequest({ id: null }));
    expect(response.status).toBe(400);
    expect(response.headers.get('X-Request-Id')).toBeNull();
    const problem = await problemOf(response);
    expect(problem).toMatchObject({ code: 'missing-request-id', status: 400 });
    expect(problem).not.toHaveProperty('requestId');
    expect(problem).not.toHaveProperty('detail');
  });

  it('says in `detail` why a running intent whose worker died is answered 503 intent-failed', async () => {
    const app = chatApp();
    // A worker took the intent and stopped: its lease is already over.
    await app.store.acquire(encodeKey({ user: 'alice', session: '' }, ID), 'fingerprint', 0);
    const response = await app.handle(statusRequest(ID));
    expect(response.status).toBe(503);
    expect(response.headers.get('X-Request-Id')).toBe(ID);
    expect(await problemOf(response)).toMatchObject({
      code: 'intent-failed',
      requestId: ID,
      detail: expect.stringContaining('resend'),
    });
    expect(app.calls).toHaveLength(0);
  });
});

/** A request on the status route: `DELETE` stops the intent; any other method but GET and HEAD is refused. */
const statusRoute = (method: string, headers: Record<string, string> = {}) =>
  new Request(`http://app.test/api/status/${ID}`, { method, headers: { Authorization: 'Bearer alice', ...headers } });

const failing = (): never => {
  throw new Error('the model is down');
};

/** Work that has not answered yet and gives up when its signal aborts (a stop). */
const stoppable = ({ context }: Call): Promise<Response> =>
  new Promise<Response>((_resolve, reject) => {
    context.signal.addEventListener('abort', () => reject(context.signal.reason));
  });

/**
 * One way to get each code of the table (src/core/problems.ts) out of the server: a row
 * added to the table fails to compile here until its answer is specified.
 */
const SCENARIOS = {
  'missing-request-id': () => chatApp().handle(chatRequest({ id: null })),
  'invalid-request-id': () => chatApp().handle(chatRequest({ id: 'short' })),
  'request-id-reused': async () => {
    const app = chatApp();
    await app.handle(chatRequest({ question: 'first' }));
    return app.handle(chatRequest({ question: 'another body' }));
  },
  'payload-too-large': () => chatApp({ maxBodyBytes: 8 }).handle(chatRequest()),
  'request-body-incomplete': () =>
    chatApp().handle(
      new Request('http://app.test/api/chat', {
        method: 'POST',
        headers: { Authorization: 'Bearer alice', 'X-Request-Id': ID },
        body: new ReadableStream({ pull: (controller) => controller.error(new TypeError('terminated')) }),
        duplex: 'half',
      } as RequestInit),
    ),
  'request-in-progress': async () => {
    const release = gate();
    const app = chatApp({
      store: recordOps(new MemoryStore()),
      inProgressStatus: 409,
      work: () => release.promise.then(() => undefined),
    });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length === 1);
    const second = await app.handle(chatRequest());
    release.open();
    await first;
    return second;
  },
  'intent-failed': () => chatApp({ work: failing }).handle(chatRequest()),
  'store-unavailable': () =>
    chatApp({ store: viewOf(new MemoryStore(), { acquire: () => Promise.reject(new Error('connection refused')) }) }).handle(
      chatRequest(),
    ),
  'store-failed': () => {
    const refused = Object.assign(new Error('WRONGTYPE'), { code: 'store-failed' });
    return chatApp({ store: viewOf(new MemoryStore(), { acquire: () => Promise.reject(refused) }) }).handle(chatRequest());
  },
  'internal-error': () =>
    chatApp({
      scope: () => {
        throw new Error('the session service is down');
      },
    }).handle(chatRequest()),
  'intent-not-found': () => chatApp().handle(statusRequest(ID)),
  'response-not-replayable': async () => {
    const app = chatApp({ store: recordOps(new MemoryStore()), maxResponseBytes: 8 });
    await (await app.handle(chatRequest())).text();
    await until(() => app.events.some((event) => event.type === 'completed'));
    return app.handle(chatRequest());
  },
  'method-not-allowed': () => chatApp().handle(statusRoute('PUT')),
  'intent-stopped': async () => {
    const app = chatApp({ work: stoppable });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length === 1);
    await app.handle(statusRoute('DELETE', { Prefer: 'wait=5' }));
    return first;
  },
  'stop-unsupported': () => chatApp({ store: recordOps(new MemoryStore()) }).handle(statusRoute('DELETE')),
  'intent-exhausted': async () => {
    const app = chatApp({ maxRuns: 1, work: failing });
    await app.handle(chatRequest());
    return app.handle(chatRequest());
  },
} satisfies Record<ProblemCode, () => Promise<Response>>;

describe('createIdempotencyHandler: every code of the problem table', () => {
  it.each(Object.entries(SCENARIOS) as [ProblemCode, () => Promise<Response>][])(
    'answers %s at its row’s status, as a problem naming the code',
    async (code, scenario) => {
      const response = await scenario();
      expect(response.status).toBe(PROBLEMS[code].status);
      expect(await problemOf(response)).toMatchObject({ code, status: PROBLEMS[code].status });
    },
  );
});
