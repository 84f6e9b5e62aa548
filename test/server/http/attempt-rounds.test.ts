/**
 * The claim loop of an attempt (PROTOCOL.md § 6): what a request that finds its intent
 * held gets — at once, or after `Prefer: wait` — when the holder lives, dies to the
 * millisecond, fails, or its record vanishes. Each case on a store that keeps answer logs
 * (`MemoryStore`) and on one that does not (`recordOps`). The clock is faked (Date only,
 * timers stay real) so a lease ends exactly when the spec says.
 */

import { type IdempotencyStore, MemoryStore } from 'answer-once/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type ChatApp, chatApp, chatRequest, gate, recordOps, viewOf } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';

const ID = 'req-0000000001';
const T0 = 1_000_000;
const LEASE = 20; // also how long a waiter sleeps (real time) before it looks again
const WAIT = { Prefer: 'wait=5' };

/** Resolves once `condition()` holds; bounded by the real clock (Date is faked here). */
async function eventually(condition: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(1);
  }
}

const cutOff = { renew: () => Promise.reject(new Error('ETIMEDOUT')) };

const kinds = [
  {
    kind: 'a log-keeping store',
    view: <S extends IdempotencyStore>(store: S, o: Partial<IdempotencyStore> = {}) => viewOf(store, o),
  },
  {
    kind: 'a store without logs',
    view: (store: IdempotencyStore, o: Partial<IdempotencyStore> = {}) => recordOps(store, o),
  },
] as const;

/** A worker that holds the intent with its work held open, and whose heartbeats never arrive (it will die). */
async function deadHolder(store: IdempotencyStore): Promise<{ done: () => Promise<string> }> {
  const release = gate();
  const app = chatApp({ store, leaseMs: LEASE, work: () => release.promise.then(() => undefined) });
  const answer = app.handle(chatRequest());
  await eventually(() => app.calls.length > 0);
  return {
    done: async () => {
      release.open();
      return (await answer).text();
    },
  };
}

const inProgress = (app: ChatApp<IdempotencyStore>) => app.events.filter((event) => event.type === 'in-progress');

afterEach(() => {
  vi.useRealTimers();
});

describe.each(kinds)('an attempt on $kind', ({ view }) => {
  it('answers a live holder’s intent with one 202 and one in-progress event, marked as not waited', async () => {
    const store = new MemoryStore();
    const release = gate();
    const app = chatApp({
      store: view(store),
      work: (call) => (call.context.retry ? undefined : release.promise.then(() => undefined)),
    });
    const first = app.handle(chatRequest());
    await eventually(() => app.calls.length > 0);

    const resend = await app.handle(chatRequest());
    expect(resend.status).toBe(202);
    expect(resend.headers.get('Preference-Applied')).toBeNull();
    expect(inProgress(app)).toEqual([{ type: 'in-progress', key: app.calls[0]?.context.key, requestId: ID }]);
    release.open();
    expect((await first).status).toBe(200);
  });

  it('takes the intent over when its holder’s lease ends, to the millisecond, during the wait', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const store = new MemoryStore();
    const holder = await deadHolder(view(store, cutOff));
    const app = chatApp({ store: view(store), leaseMs: LEASE });
    const waiting = app.handle(chatRequest({ headers: WAIT }));
    await eventually(() => inProgress(app).length > 0);

    vi.setSystemTime(T0 + LEASE); // the holder's lease ends now: it is dead, not live
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ answer: 'echo: hello?' });
    expect(app.calls.map((call) => call.context.takeover)).toEqual([true]);
    await holder.done();
  });

  it('runs the intent afresh when its record vanishes during the wait (the store lost it)', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const store = new MemoryStore({ abandonedTtlMs: 0 }); // a lapsed lease's record is gone at once
    const holder = await deadHolder(view(store, cutOff));
    const app = chatApp({ store: view(store), leaseMs: LEASE });
    const waiting = app.handle(chatRequest({ headers: WAIT }));
    await eventually(() => inProgress(app).length > 0);

    vi.setSystemTime(T0 + LEASE);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(app.calls.map(({ context }) => [context.takeover, context.retry])).toEqual([[false, false]]);
    await holder.done();
  });

  it('runs the intent again when its holder fails during the wait, and answers the held request', async () => {
    const store = new MemoryStore();
    const release = gate();
    const app = chatApp({
      store: view(store),
      work: (call) => (call.context.retry ? undefined : release.promise.then(() => new Response('down', { status: 500 }))),
    });
    const first = app.handle(chatRequest());
    await eventually(() => app.calls.length > 0);
    const waiting = app.handle(chatRequest({ headers: WAIT }));
    await eventually(() => inProgress(app).length > 0);

    release.open();
    expect((await first).status).toBe(500);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('Preference-Applied')).toBe('wait=5');
    expect(app.calls.map((call) => call.context.retry)).toEqual([false, true]);
  });
});

describe('an attempt that waited', () => {
  /** An `acquire` over `store` that lets `rival` claim the intent just before the request's second claim. */
  function rivalBeforeSecondClaim(store: MemoryStore, rival: ChatApp<IdempotencyStore>) {
    let claims = 0;
    let answer: Promise<Response> | undefined;
    const acquire: MemoryStore['acquire'] = async (...args) => {
      claims += 1;
      if (claims === 2) {
        answer = rival.handle(chatRequest());
        await eventually(() => rival.calls.length > 0);
      }
      return store.acquire(...args);
    };
    return { acquire, claims: () => claims, answer: () => answer };
  }

  /**
   * A dead holder; the request waits; the lease ends; a rival claims the intent between
   * the wait's end and the request's second claim (and, with `rivalFails`, fails just
   * before the request looks at it again).
   */
  async function rivalRound(rivalFails: boolean) {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const store = new MemoryStore();
    const holder = await deadHolder(viewOf(store, cutOff));
    const release = gate();
    const rival = chatApp({
      store,
      leaseMs: LEASE,
      work: () => release.promise.then(() => (rivalFails ? new Response('down', { status: 500 }) : undefined)),
    });
    const second = rivalBeforeSecondClaim(store, rival);
    let reads = 0;
    const app = chatApp({
      leaseMs: LEASE,
      store: viewOf(store, {
        acquire: second.acquire,
        read: async (...args: Parameters<MemoryStore['read']>) => {
          reads += 1;
          if (reads === 2 && rivalFails) {
            release.open();
            await second.answer();
          }
          return store.read(...args);
        },
      } as Partial<IdempotencyStore>),
    });
    const waiting = app.handle(chatRequest({ headers: WAIT }));
    await eventually(() => inProgress(app).length > 0);
    vi.setSystemTime(T0 + LEASE);
    const bounded = new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 200));
    const answer = await Promise.race([waiting, bounded]);
    if (!(answer instanceof Response)) throw new Error(answer);
    release.open();
    const rivals = await second.answer();
    await holder.done();
    return { answer, app, rivals, claims: second.claims() };
  }

  it('waits once: after a dead holder, a rival’s fresh claim is answered 202 at once', async () => {
    const { answer, app, rivals } = await rivalRound(false);
    expect(answer.status).toBe(202);
    expect(answer.headers.get('Preference-Applied')).toBe('wait=5');
    expect(app.calls).toHaveLength(0);
    expect(rivals?.status).toBe(200);
  });

  it('claims at most twice: a rival that failed after the second claim still leaves a 202', async () => {
    const { answer, app, claims } = await rivalRound(true);
    expect(answer.status).toBe(202);
    expect(app.calls).toHaveLength(0);
    expect(claims).toBe(2);
  });

  it('waits once on a store without logs too: a rival’s fresh claim after the wait is answered 202 at once', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: T0 });
    const store = new MemoryStore();
    const holder = await deadHolder(recordOps(store, cutOff));
    const release = gate();
    const rival = chatApp({ store: recordOps(store), leaseMs: LEASE, work: () => release.promise.then(() => undefined) });
    const second = rivalBeforeSecondClaim(store, rival);
    let waits = 0;
    const app = chatApp({
      leaseMs: LEASE,
      store: recordOps(store, {
        acquire: second.acquire,
        wait: (...args) => {
          waits += 1;
          return store.wait(...args);
        },
      }),
    });
    const waiting = app.handle(chatRequest({ headers: WAIT }));
    await eventually(() => waits > 0);
    vi.setSystemTime(T0 + LEASE);
    const bounded = new Promise<string>((resolve) => setTimeout(() => resolve('still waiting'), 200));
    const answer = await Promise.race([waiting, bounded]);
    release.open();
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(202);
    expect((answer as Response).headers.get('Preference-Applied')).toBe('wait=5');
    expect([second.claims(), waits, app.calls.length]).toEqual([2, 1, 0]);
    expect((await second.answer())?.status).toBe(200);
    await holder.done();
    await waiting;
  });

  it('answers 503 when the store fails the wait, and names the wait in its store-error event', async () => {
    const store = new MemoryStore();
    const release = gate();
    const app = chatApp({
      store: recordOps(store, { wait: () => Promise.reject(new Error('ECONNRESET')) }),
      work: () => release.promise.then(() => undefined),
    });
    const first = app.handle(chatRequest());
    await eventually(() => app.calls.length > 0);

    const held = await app.handle(chatRequest({ headers: WAIT }));
    expect(held.status).toBe(503);
    expect(await held.json()).toMatchObject({ code: 'store-unavailable', requestId: ID });
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'wait' }));
    release.open();
    expect((await first).status).toBe(200);
  });
});
