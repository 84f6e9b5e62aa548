/**
 * The status route's reads (PROTOCOL.md § 8) beyond the answer itself: a caller the app's
 * scope turns away gets the app's answer and reads nothing; `Prefer: wait` holds a read
 * only while a live holder runs the intent (never for a settled intent, nor for one whose
 * holder's lease lapsed, even at the very millisecond it ends), past the store's own
 * deadline, and not at all when no wait was asked for; and a store failure names the
 * operation that failed.
 */

import { type IdempotencyEvent, MemoryStore } from 'answer-once/server';
import { describe, expect, it, vi } from 'vitest';
import { chatApp, chatRequest, gate, recordOps, statusRequest, until } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';
import { parseEvents, tokens } from '../../support/stream-support.js';

const ID = 'req-0000000001';
const ORIGIN = 'http://app.test';

/** An app whose model streams `first` once `head` opens, then `second` once `rest` opens. */
function gatedStream() {
  const head = gate();
  const rest = gate();
  const encoder = new TextEncoder();
  const app = chatApp({
    work: () =>
      new Response(
        new ReadableStream<Uint8Array>({
          async start(controller) {
            await head.promise;
            controller.enqueue(encoder.encode('data: first\n\n'));
            await rest.promise;
            controller.enqueue(encoder.encode('data: second\n\n'));
            controller.close();
          },
        }),
        { headers: { 'Content-Type': 'text/event-stream' } },
      ),
  });
  return { app, head, rest };
}

describe('the status route: who may read, and how long a read is held', () => {
  it('answers a caller the scope turns away with the app’s own answer, and reads nothing', async () => {
    let reads = 0;
    const inner = new MemoryStore();
    const store = recordOps(inner, {
      get: (key) => ((reads += 1), inner.get(key)),
      wait: (...args) => ((reads += 1), inner.wait(...args)),
    });
    const app = chatApp({ store });
    const response = await app.handle(new Request(`${ORIGIN}/api/status/${ID}`, { headers: { Prefer: 'wait=5' } }));
    expect(response.status).toBe(401);
    expect(await response.text()).toBe('sign in first');
    expect(reads).toBe(0);
  });

  it('answers a settled intent at once with one read, without Preference-Applied: nothing was waited for', async () => {
    const ops: string[] = [];
    const inner = new MemoryStore();
    const store = recordOps(inner, {
      get: (key) => (ops.push('get'), inner.get(key)),
      wait: (...args) => (ops.push('wait'), inner.wait(...args)),
    });
    const app = chatApp({ store });
    await app.handle(chatRequest());
    ops.length = 0;
    const started = performance.now();
    const status = await app.handle(statusRequest(ID, { headers: { Prefer: 'wait=5' } }));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(status.status).toBe(200);
    expect(status.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(status.headers.get('Preference-Applied')).toBeNull();
    expect(ops).toEqual(['get']);
  });

  it('answers an ID it never saw 404 at once, whatever wait is asked for', async () => {
    const status = await chatApp().handle(statusRequest('req-never-sent', { headers: { Prefer: 'wait=5' } }));
    expect(status.status).toBe(404);
  });

  it('does not hold a read for an intent whose holder’s lease lapsed: intent-failed at once', async () => {
    const store = new MemoryStore();
    const app = chatApp({ store });
    await app.handle(chatRequest());
    const key = app.calls[0]!.context.key.replace(ID, 'req-0000000002');
    await store.acquire(key, 'fp', 20);
    await sleep(40);
    const started = performance.now();
    const dead = await app.handle(statusRequest('req-0000000002', { headers: { Prefer: 'wait=5' } }));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(dead.status).toBe(503);
    expect(dead.headers.get('Preference-Applied')).toBeNull();
  });

  it('does not hold a read at the very millisecond its holder’s lease ends: that lease has lapsed', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    try {
      const store = new MemoryStore();
      const app = chatApp({ store });
      await app.handle(chatRequest());
      const key = app.calls[0]!.context.key.replace(ID, 'req-0000000002');
      const claim = await store.acquire(key, 'fp', 20);
      if (!claim.acquired) throw new Error('the claim was refused');
      vi.setSystemTime(claim.leaseExpiresAt);
      const dead = await app.handle(statusRequest('req-0000000002', { headers: { Prefer: 'wait=1' } }));
      expect(dead.status).toBe(503);
      expect(dead.headers.get('Preference-Applied')).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it.each([
    ['an answer-log store', () => new MemoryStore()],
    ['a store without logs', () => recordOps(new MemoryStore())],
  ])(
    'answers a read of a running intent on %s at once 202, without Preference-Applied when no wait was asked',
    async (_name, makeStore) => {
      const release = gate();
      const app = chatApp({ store: makeStore(), work: () => release.promise.then(() => undefined) });
      const first = app.handle(chatRequest());
      await until(() => app.calls.length > 0);
      const status = await app.handle(statusRequest(ID));
      expect(status.status).toBe(202);
      expect(await status.json()).toMatchObject({ state: 'processing' });
      expect(status.headers.get('Preference-Applied')).toBeNull();
      release.open();
      await first;
    },
  );

  it('holds a read past the store’s own deadline, up to the wait asked for', async () => {
    const release = gate();
    // A store without answer logs: the held read is the store's own `wait`, under a deadline.
    const store = recordOps(new MemoryStore());
    const app = chatApp({ store, storeTimeoutMs: 600, work: () => release.promise.then(() => undefined) });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    const polled = app.handle(statusRequest(ID, { headers: { Prefer: 'wait=1' } }));
    await sleep(800); // past storeTimeoutMs - 200 ms, within the 1 s asked for
    release.open();
    const answer = await polled;
    expect(answer.status).toBe(200);
    expect(answer.headers.get('Preference-Applied')).toBe('wait=1');
    await first;
  });

  it('attaches a read of a streamed answer in progress at once, without being asked to wait', async () => {
    const { app, head, rest } = gatedStream();
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    head.open();
    const reader = (await first).body!.getReader();
    await reader.read(); // the first event is out
    await sleep(100); // and logged (a flush window is 25 ms)
    const attached = await app.handle(statusRequest(ID));
    expect(attached.headers.get('X-Idempotent-Attached')).toBe('true');
    rest.open();
    expect(tokens(parseEvents(await attached.text()))).toEqual(['first', 'second']);
    while (!(await reader.read()).done);
  });

  it('attaches a held read to a streamed answer as soon as its first event exists, not when it ends', async () => {
    const { app, head, rest } = gatedStream();
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    const polled = app.handle(statusRequest(ID, { headers: { Prefer: 'wait=5' } }));
    await sleep(50);
    head.open();
    const attached = await Promise.race([polled, sleep(2_000).then(() => undefined)]);
    expect(attached?.headers.get('X-Idempotent-Attached')).toBe('true');
    rest.open();
    expect(tokens(parseEvents(await attached!.text()))).toEqual(['first', 'second']);
    await (await first).text();
  });

  it('names the store operation that failed: get for a read, wait for a held one', async () => {
    for (const [operation, prefer] of [
      ['get', undefined],
      ['wait', 'wait=1'],
    ] as const) {
      const events: IdempotencyEvent[] = [];
      const inner = new MemoryStore();
      const refuse = () => Promise.reject(new Error('connection reset'));
      const store = recordOps(inner, operation === 'get' ? { get: refuse } : { wait: refuse });
      const release = gate();
      const app = chatApp({
        store,
        onEvent: (event) => events.push(event),
        work: () => release.promise.then(() => undefined),
      });
      const first = app.handle(chatRequest());
      await until(() => app.calls.length > 0);
      const status = await app.handle(statusRequest(ID, prefer ? { headers: { Prefer: prefer } } : {}));
      expect(status.status, operation).toBe(503);
      expect(events.filter((event) => event.type === 'store-error')).toMatchObject([{ operation }]);
      release.open();
      await first;
    }
  });
});
