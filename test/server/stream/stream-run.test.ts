/**
 * One streamed run on a log-keeping store, as the app and its operators see it (PROTOCOL.md
 * § 14.7, § 14.8): how a stop reaches the work when the stop watch fails, how a fenced
 * append aborts the work, what a body that breaks mid-stream leaves behind, and the kept
 * 409 of a stop that came before the work answered.
 */

import { LeaseLostError, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, gate, statusRequest, until, viewOf } from '../../support/server-support.js';
import { frozen, parseEvents, range, readEvents, readRest, sseAnswer, tokens } from '../../support/stream-support.js';

const ID = 'req-0000000001';

const stopRequest = (): Request =>
  new Request(`http://app.test/api/status/${ID}`, { method: 'DELETE', headers: { Authorization: 'Bearer alice' } });

describe('a streamed run: how a stop and a fence reach the work', () => {
  it('still stops the work through its next append when the store’s stop watch fails, and reports that failure', async () => {
    const watchDown = new Error('watchStop: connection refused');
    let signal: AbortSignal | undefined;
    const app = chatApp({
      store: viewOf(new MemoryStore(), { watchStop: () => Promise.reject(watchDown) }),
      flushMs: 10,
      work: ({ context }) => {
        signal = context.signal;
        return sseAnswer(1_000, { delayMs: 5, signal: context.signal });
      },
    });
    const fresh = await app.handle(chatRequest());
    const some = await readEvents(fresh, 3);
    await until(() => app.events.some((event) => event.type === 'store-error'));
    expect(app.events).toContainEqual(
      expect.objectContaining({ type: 'store-error', key: expect.any(String), operation: 'watchStop', error: watchDown }),
    );

    expect((await app.handle(stopRequest())).status).toBe(202);
    await until(() => signal?.aborted === true);
    expect(signal?.reason).toBeInstanceOf(DOMException);
    expect(signal?.reason).toMatchObject({ name: 'AbortError' });
    const rest = await readRest(some);
    const events = parseEvents(some.text + rest.text);
    expect(events.at(-1)).toMatchObject({ event: 'answer-once.stopped' });
    expect(tokens(events).length).toBeLessThan(1_000);
    const later = await app.handle(chatRequest());
    expect(await later.text()).toBe(some.text + rest.text);
    expect(app.calls).toHaveLength(1);
  });

  it('aborts the work of a producer whose append was fenced by a takeover, with a LeaseLostError', async () => {
    const store = new MemoryStore();
    const frozenStore = frozen(store);
    let zombie: AbortSignal | undefined;
    const dying = chatApp({
      store: frozenStore.store,
      leaseMs: 60_000, // lapses at frozenStore.lapse(), not before
      flushMs: 10,
      work: ({ context }) => {
        zombie = context.signal;
        return sseAnswer(1_000, { prefix: 'old ', delayMs: 10 });
      },
    });
    const healthy = chatApp({ store, flushMs: 10, work: () => sseAnswer(2, { prefix: 'new ' }) });
    const doomed = await dying.handle(chatRequest());
    const reading = doomed.text();
    await frozenStore.logged();
    await frozenStore.lapse(); // its lease lapsed: nothing renewed it
    expect(zombie?.aborted).toBe(false);

    const successor = await healthy.handle(chatRequest());
    expect(tokens(parseEvents(await successor.text()))).toEqual(range(2, 'new '));
    await until(() => zombie?.aborted === true);
    expect(zombie?.reason).toBeInstanceOf(LeaseLostError);
    expect(parseEvents(await reading).at(-1)).toMatchObject({ event: 'answer-once.error' });
    expect(dying.calls).toHaveLength(1);
    expect(healthy.calls).toHaveLength(1);
  });
});

describe('a streamed run: a body that breaks after it began to stream', () => {
  const breaking = () => {
    const go = gate();
    return { go, work: () => sseAnswer(10, { breakAfter: 4, delayMs: 5, hold: go.promise }) };
  };

  it('is recorded failed with status 502: the failed event carries the model’s error, the status route answers 502', async () => {
    const { go, work } = breaking();
    const app = chatApp({ flushMs: 10, work });
    const fresh = await app.handle(chatRequest());
    go.open();
    expect(parseEvents(await fresh.text()).at(-1)).toMatchObject({ event: 'answer-once.error' });
    await until(() => app.events.some((event) => event.type === 'failed'));
    expect(app.events).toContainEqual(
      expect.objectContaining({ type: 'failed', error: expect.objectContaining({ message: 'model connection reset' }) }),
    );
    const status = await app.handle(statusRequest(ID));
    expect(status.status).toBe(502);
    expect(await status.json()).toMatchObject({ code: 'intent-failed', status: 502 });
  });

  it('reports a store that refuses to record the failure as a store error of its fail operation', async () => {
    const { go, work } = breaking();
    const refused = new Error('fail: connection refused');
    const app = chatApp({
      store: viewOf(new MemoryStore(), { fail: () => Promise.reject(refused) }),
      flushMs: 10,
      // Its tries of the refused write end here, not after the default 5 s (the spec's own timeout).
      storeTimeoutMs: 200,
      work,
    });
    const fresh = await app.handle(chatRequest());
    go.open();
    await fresh.text();
    await until(() => app.events.some((event) => event.type === 'store-error'), 10_000);
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'store-error', operation: 'fail', error: refused }));
  });
});

describe('a streamed run stopped before its work answered', () => {
  it('keeps a 409 intent-stopped problem whose title says it will not run again, replayed as problem+json', async () => {
    const app = chatApp({
      flushMs: 10,
      work: ({ context }) =>
        new Promise<Response>((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(context.signal.reason));
        }),
    });
    const fresh = app.handle(chatRequest());
    await until(() => app.calls.length === 1);
    expect((await app.handle(stopRequest())).status).toBe(202);
    const answered = await fresh;
    expect(answered.status).toBe(409);
    const problem = await answered.json();
    expect(problem).toMatchObject({ code: 'intent-stopped', title: expect.stringContaining('will not run again') });

    const later = await app.handle(chatRequest());
    expect(later.status).toBe(409);
    expect(later.headers.get('Content-Type')).toBe('application/problem+json');
    expect(await later.json()).toEqual(problem);
    expect(app.calls).toHaveLength(1);
  });
});
