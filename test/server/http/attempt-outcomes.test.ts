/**
 * What an attempt makes of its work's answer (PROTOCOL.md § 7): a 5xx or 408/425/429 is
 * a failed attempt (its body dropped, its `Retry-After` passed on only when sent), a
 * zombie's late answer yields to its successor's, and the headers say which generation
 * answered. Events name the store call that failed.
 */

import { type IdempotencyStore, MemoryStore } from 'answer-once/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chatApp, chatRequest, gate, recordOps, viewOf } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';

const ID = 'req-0000000001';
const T0 = 1_000_000;
const LEASE = 20;

const refused = () => Promise.reject(new Error('ECONNRESET'));

/** Resolves once `condition()` holds; bounded by the real clock (Date may be faked). */
async function eventually(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(1);
  }
}

const kinds = [
  { kind: 'a log-keeping store', view: (store: MemoryStore, o: Partial<IdempotencyStore> = {}) => viewOf(store, o) },
  { kind: 'a store without logs', view: (store: MemoryStore, o: Partial<IdempotencyStore> = {}) => recordOps(store, o) },
] as const;

afterEach(() => {
  vi.useRealTimers();
});

describe.each(kinds)('an attempt’s failed answer on $kind', ({ view }) => {
  it('answers a locked body as a broken attempt (502) that a resend runs again', async () => {
    const app = chatApp({
      store: view(new MemoryStore()),
      work: (call) => {
        if (call.context.retry) return undefined;
        const locked = new Response('half an answer');
        locked.body?.getReader(); // the app kept a reader on it
        return locked;
      },
    });
    const first = await app.handle(chatRequest());
    expect(first.status).toBe(502);
    expect(await first.json()).toMatchObject({ code: 'intent-failed', requestId: ID });
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'failed' }));

    const resend = await app.handle(chatRequest());
    expect(resend.status).toBe(200);
    expect(app.calls.map((call) => call.context.retry)).toEqual([false, true]);
  });

  it('passes no Retry-After on when the work’s 5xx sent none', async () => {
    const app = chatApp({ store: view(new MemoryStore()), work: () => new Response('down', { status: 503 }) });
    const answer = await app.handle(chatRequest());
    expect(answer.status).toBe(503);
    expect(answer.headers.get('Retry-After')).toBeNull();
  });

  it('cancels a 5xx answer’s body, so the app’s upstream is released', async () => {
    let cancelled = false;
    const body = new ReadableStream({
      cancel: () => {
        cancelled = true;
      },
    });
    const app = chatApp({ store: view(new MemoryStore()), work: () => new Response(body, { status: 500 }) });
    expect((await app.handle(chatRequest())).status).toBe(500);
    expect(cancelled).toBe(true);
  });

  it('answers a bodiless 503 as a failed attempt that a resend runs again', async () => {
    const app = chatApp({
      store: view(new MemoryStore()),
      work: (call) => (call.context.retry ? undefined : new Response(null, { status: 503 })),
    });
    const first = await app.handle(chatRequest());
    expect(first.status).toBe(503);
    expect(await first.json()).toMatchObject({ code: 'intent-failed', requestId: ID });
    expect((await app.handle(chatRequest())).status).toBe(200);
    expect(app.calls).toHaveLength(2);
  });

  it.each([500, 429])('still answers a %i when the store refuses to record the failure, naming fail', async (status) => {
    const app = chatApp({ store: view(new MemoryStore(), { fail: refused }), work: () => new Response('no', { status }) });
    expect((await app.handle(chatRequest())).status).toBe(status);
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'fail' }));
  });
});

describe('a zombie’s late answer on a store without logs', () => {
  /** A worker whose heartbeats and reads fail (a partition), holding the intent until `release`; a successor takes it over. */
  async function zombieAndSuccessor(work: () => Response, maxResponseBytes?: number) {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const store = new MemoryStore();
    const release = gate();
    const zombie = chatApp({
      store: recordOps(store, { renew: refused, get: refused }),
      leaseMs: LEASE,
      ...(maxResponseBytes === undefined ? {} : { maxResponseBytes }),
      work: () => release.promise.then(work),
    });
    const late = zombie.handle(chatRequest());
    await eventually(() => zombie.calls.length > 0);
    vi.setSystemTime(T0 + LEASE);
    const successor = chatApp({
      store: recordOps(store),
      leaseMs: LEASE,
      work: () => Response.json({ answer: 'successor' }),
    });
    expect(await (await successor.handle(chatRequest())).json()).toEqual({ answer: 'successor' });
    release.open();
    return { zombie, late };
  }

  it('keeps its own answer when the successor’s cannot be read, and names the get', async () => {
    const { zombie, late } = await zombieAndSuccessor(() => Response.json({ answer: 'zombie' }));
    const answer = await late;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ answer: 'zombie' });
    expect(zombie.events).toContainEqual(expect.objectContaining({ type: 'fenced', operation: 'complete' }));
    expect(zombie.events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'get' }));
  });

  it('asks the store nothing more for an answer already delivered while it streamed', async () => {
    const { zombie, late } = await zombieAndSuccessor(() => new Response('the zombie’s long answer'), 4);
    expect(await (await late).text()).toBe('the zombie’s long answer');
    await eventually(() => zombie.events.some((event) => event.type === 'fenced'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(zombie.events.filter((event) => event.type === 'store-error')).toEqual([]);
  });
});

describe('the generation headers of a first answer', () => {
  it('names no generation on a store without logs', async () => {
    const answer = await chatApp({ store: recordOps(new MemoryStore()) }).handle(chatRequest());
    expect(answer.status).toBe(200);
    expect(answer.headers.get('X-Idempotent-Generation')).toBeNull();
  });

  it('names its generation on a log-keeping store, and is not marked restarted', async () => {
    const answer = await chatApp().handle(chatRequest());
    expect(answer.status).toBe(200);
    expect(answer.headers.get('X-Idempotent-Generation')).toMatch(/^\d+$/);
    expect(answer.headers.get('X-Idempotent-Restarted')).toBeNull();
  });
});
