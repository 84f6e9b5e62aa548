import { createIdempotencyHandler, type IdempotencyEvent, type IdempotencyStore, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { type ChatApp, chatApp, chatRequest, recordOps, statusRequest } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';

const ID = 'req-0000000001';

/** The attempt got an `intent-failed` problem with `status`; a resend runs the work again and answers. */
async function expectFailedThenRunAgain(app: ChatApp<IdempotencyStore>, failed: Response, status: number): Promise<void> {
  expect(failed.status).toBe(status);
  expect(await failed.json()).toMatchObject({ code: 'intent-failed' });
  expect((await app.handle(chatRequest())).status).toBe(200);
  expect(app.calls).toHaveLength(2);
}

/** Work whose first run ends in `first()` (what it returns or throws); every later run answers. */
function failingFirst(first: () => Response | Promise<Response>): () => Response | Promise<Response> | undefined {
  let runs = 0;
  return () => (runs++ === 0 ? first() : undefined);
}

/**
 * An app whose first run answers `status` with `body` and `Retry-After: retryAfter`, and
 * that first answer, which keeps them.
 */
async function firstAnswering(status: number, body: string, retryAfter: string) {
  const app = chatApp({
    work: failingFirst(() => new Response(body, { status, headers: { 'Retry-After': retryAfter } })),
  });
  const first = await app.handle(chatRequest());
  expect(first.status).toBe(status);
  expect(first.headers.get('Retry-After')).toBe(retryAfter);
  return { app, first };
}

/** An answer that streams 'Once upon', then breaks (at once, or after `pauseMs`). */
function breakingAnswer(pauseMs?: number): Response {
  return new Response(
    new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('Once upon'));
        if (pauseMs !== undefined) await sleep(pauseMs);
        controller.error(new Error('model connection reset'));
      },
    }),
  );
}

// The state table's FAILED rows (PROTOCOL.md § 7): what is not an answer, and the resend that runs again.
describe('createIdempotencyHandler: attempts that fail', () => {
  it('answers a thrown error as intent-failed (5xx) and runs the same intent again on resend', async () => {
    const app = chatApp({
      work: failingFirst(() => {
        throw new Error('model timeout');
      }),
    });
    const failed = await app.handle(chatRequest());
    expect(failed.status).toBe(500);
    expect(failed.headers.get('Content-Type')).toBe('application/problem+json');
    const problem = (await failed.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ code: 'intent-failed', status: 500, requestId: ID });
    expect(JSON.stringify(problem)).not.toContain('model timeout');
    expect(app.events).toContainEqual(
      expect.objectContaining({ type: 'failed', error: expect.objectContaining({ message: 'model timeout' }) }),
    );
    const retried = await app.handle(chatRequest());
    expect(retried.status).toBe(200);
    expect(app.calls.map((call) => call.context.retry)).toEqual([false, true]);
  });

  it('records a 5xx answer as FAILED with its status and Retry-After, and runs again on resend', async () => {
    const { app, first: failed } = await firstAnswering(503, 'overloaded', '7');
    expect(await failed.json()).toMatchObject({ code: 'intent-failed' });
    const status = await app.handle(statusRequest(ID));
    await expectFailedThenRunAgain(app, status, 503);
  });

  it('records a plain 500 from the work as FAILED too, and runs again on resend', async () => {
    const app = chatApp({ work: failingFirst(() => new Response('boom', { status: 500 })) });
    await expectFailedThenRunAgain(app, await app.handle(chatRequest()), 500);
  });

  it('answers a handler that returns no Response as intent-failed (500), reports why, and runs again on resend', async () => {
    let failures = 1;
    const app = createIdempotencyHandler({
      store: new MemoryStore(),
      scope: () => ({ user: 'alice' }),
      handler: () => (failures-- > 0 ? ({ answer: 'not a Response' } as unknown as Response) : Response.json({ ok: 1 })),
      onEvent: (event) => events.push(event),
    });
    const events: IdempotencyEvent[] = [];
    const failed = await app(chatRequest());
    expect(failed.status).toBe(500);
    expect(await failed.json()).toMatchObject({ code: 'intent-failed', requestId: ID });
    const reported = events.find((event) => event.type === 'failed') as { error?: unknown } | undefined;
    expect(String(reported?.error)).toContain('`handler` must return a Response');
    expect((await app(chatRequest())).status).toBe(200);
  });

  it('records a 5xx answer whose body stream broke as FAILED, and runs again on resend', async () => {
    const app = chatApp({
      work: failingFirst(() => {
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.error(new Error('upstream reset'));
          },
        });
        return new Response(body, { status: 503 });
      }),
    });
    const failed = await app.handle(chatRequest());
    await expectFailedThenRunAgain(app, failed, 503);
  });

  it('passes 408/425/429 through unchanged and does not keep them as the answer', async () => {
    const { app, first } = await firstAnswering(429, 'slow down', '3');
    expect(await first.text()).toBe('slow down');
    expect((await app.handle(chatRequest())).status).toBe(200);
    expect(app.calls).toHaveLength(2);
  });

  it('answers intent-failed, and runs again on resend, when a 429 comes back with a body already read', async () => {
    const app = chatApp({
      work: failingFirst(async () => {
        const response = new Response('slow down', { status: 429 });
        await response.text(); // e.g. logged by the app before returning it
        return response;
      }),
    });
    const failed = await app.handle(chatRequest());
    await expectFailedThenRunAgain(app, failed, 503);
  });

  it('records an answer whose stream breaks before anything went out as FAILED (502 intent-failed), and runs again on resend', async () => {
    const app = chatApp({ work: failingFirst(() => breakingAnswer()) });
    await expectFailedThenRunAgain(app, await app.handle(chatRequest()), 502);
  });

  it('records an answer whose stream breaks while streaming as FAILED, breaking the caller’s body, and runs again on resend', async () => {
    const app = chatApp({ work: failingFirst(() => breakingAnswer(10)) });
    const broken = await app.handle(chatRequest());
    expect(broken.status).toBe(200); // streamed: the head went out before the body broke
    await expect(broken.text()).rejects.toThrow(/broke off/);
    expect((await app.handle(chatRequest())).status).toBe(200);
    expect(app.calls).toHaveLength(2);
  });

  it('on a store without answer logs, answers a broken stream 502 intent-failed, and runs again on resend', async () => {
    const app = chatApp({ store: recordOps(new MemoryStore()), work: failingFirst(() => breakingAnswer()) });
    const broken = await app.handle(chatRequest());
    await expectFailedThenRunAgain(app, broken, 502);
  });
});
