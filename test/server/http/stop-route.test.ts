/**
 * The stop route (PROTOCOL.md § 14.8), `DELETE <statusPath>/<id>`, beyond the stop
 * itself (server-stream-failures): what its "stopping" answer carries, how `Prefer: wait`
 * holds it, what it reports, and how it answers a store that fails or changes under it.
 */

import { type IdempotencyEvent, type IdempotencyRecord, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { type Call, chatApp, chatRequest, gate, recordOps, until } from '../../support/server-support.js';

const ID = 'req-0000000001';

function stopRequest(headers: Record<string, string> = {}): Request {
  return new Request(`http://app.test/api/status/${ID}`, {
    method: 'DELETE',
    headers: { Authorization: 'Bearer alice', ...headers },
  });
}

/** Work that has not answered yet and gives up (rejects) when its signal aborts. */
const stoppable = ({ context }: Call): Promise<Response> =>
  new Promise<Response>((_resolve, reject) => {
    context.signal.addEventListener('abort', () => reject(context.signal.reason));
  });

describe('the stop route: its answers', () => {
  it('answers a stop of a running intent at once 202 stopping, with Location, Retry-After, no-store, and reports stop-requested', async () => {
    const app = chatApp({ work: stoppable, retryAfterSeconds: 3 });
    const fresh = app.handle(chatRequest());
    await until(() => app.calls.length === 1);
    const stop = await app.handle(stopRequest());
    expect(stop.status).toBe(202);
    expect(stop.headers.get('Location')).toBe(`/api/status/${ID}`);
    expect(stop.headers.get('Retry-After')).toBe('3');
    expect(stop.headers.get('Cache-Control')).toBe('no-store');
    expect(stop.headers.get('X-Request-Id')).toBe(ID);
    expect(stop.headers.get('Preference-Applied')).toBeNull(); // it asked for no wait
    expect(app.events).toContainEqual({ type: 'stop-requested', key: app.calls[0]!.context.key, requestId: ID });
    expect((await fresh).status).toBe(409);
  });

  it('holds a stop asked to wait until the work has stopped, then answers as the status route, saying it waited', async () => {
    const app = chatApp({ work: stoppable });
    const fresh = app.handle(chatRequest());
    await until(() => app.calls.length === 1);
    const stop = await app.handle(stopRequest({ Prefer: 'wait=5' }));
    expect(stop.status).toBe(409);
    expect(await stop.json()).toMatchObject({ code: 'intent-stopped' });
    expect(stop.headers.get('X-Idempotent-Stopped')).toBe('true');
    expect(stop.headers.get('X-Request-Id')).toBe(ID);
    expect(stop.headers.get('Preference-Applied')).toBe('wait=5');
    await fresh;
  });

  it('answers a held stop 202 stopping when the wait ends before the work stops', async () => {
    const release = gate();
    const app = chatApp({ maxWaitMs: 50, work: () => release.promise.then(() => undefined) }); // deaf to its signal
    const fresh = app.handle(chatRequest());
    await until(() => app.calls.length === 1);
    const stop = await app.handle(stopRequest({ Prefer: 'wait=5' }));
    expect(stop.status).toBe(202);
    expect(await stop.json()).toEqual({ requestId: ID, state: 'stopping', location: `/api/status/${ID}` });
    release.open();
    await fresh;
  });

  it('answers a held stop 404 when the store no longer has the record once the wait ends', async () => {
    class Forgetful extends MemoryStore {
      override wait(): Promise<IdempotencyRecord | null> {
        return Promise.resolve(null); // gone: evicted, or its TTL passed
      }
    }
    const app = chatApp({ store: new Forgetful(), work: stoppable });
    const fresh = app.handle(chatRequest());
    await until(() => app.calls.length === 1);
    const stop = await app.handle(stopRequest({ Prefer: 'wait=5' }));
    expect(stop.status).toBe(404);
    expect(await stop.json()).toMatchObject({ code: 'intent-not-found', requestId: ID });
    await fresh;
  });

  it('answers a stop that races a resend of a failed intent as the status route does: 202, even in 409 mode', async () => {
    class Racing extends MemoryStore {
      override async stop(key: string) {
        const found = await super.stop(key);
        const record = await this.get(key);
        if (found === 'settled' && record) await this.acquire(key, record.fingerprint, 10_000); // the resend claims it
        return found;
      }
    }
    // The stop finds the intent failed (settled); before it reads the record, a resend claims it.
    const app = chatApp({
      store: new Racing(),
      inProgressStatus: 409,
      work: () => new Response('overloaded', { status: 503 }),
    });
    expect((await app.handle(chatRequest())).status).toBe(503);
    const stop = await app.handle(stopRequest());
    expect(stop.status).toBe(202);
    expect(await stop.json()).toMatchObject({ state: 'processing' });
  });
});

describe('the stop route: its events', () => {
  const answered = (events: IdempotencyEvent[]) =>
    events.filter((event) => event.type === 'answered').map((event) => event.type === 'answered' && event.outcome);

  it('reports each stop request in the request meter as a status read is: answered stopped for a running intent', async () => {
    const app = chatApp({ work: stoppable });
    const fresh = app.handle(chatRequest());
    await until(() => app.calls.length === 1);
    const stop = await app.handle(stopRequest());
    expect(stop.status).toBe(202);
    await stop.body?.cancel();
    await (await fresh).text();
    await until(() => answered(app.events).length === 2);
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'answered', outcome: 'stopped', requestId: ID }));
    expect(answered(app.events)).toEqual(['stopped', 'stopped']); // the stop, and the send it stopped
  });

  it('reports a stop of an answered intent as its status read would: replayed, then answered replayed', async () => {
    const app = chatApp();
    await (await app.handle(chatRequest())).text();
    await until(() => answered(app.events).length === 1);
    const stop = await app.handle(stopRequest());
    expect(stop.status).toBe(200);
    await stop.text();
    await until(() => answered(app.events).length === 2);
    expect(app.events.filter((event) => event.type === 'replayed')).toHaveLength(1);
    expect(answered(app.events)).toEqual(['ran', 'replayed']);
  });
});

describe('the stop route: a store that cannot stop', () => {
  it('answers 501 stop-unsupported on a store without answer logs, saying so, and lets the work run on', async () => {
    const release = gate();
    const app = chatApp({ store: recordOps(new MemoryStore()), work: () => release.promise.then(() => undefined) });
    const fresh = app.handle(chatRequest());
    await until(() => app.calls.length === 1);
    const stop = await app.handle(stopRequest());
    expect(stop.status).toBe(501);
    expect(await stop.json()).toMatchObject({
      code: 'stop-unsupported',
      requestId: ID,
      title: expect.stringContaining('no answer logs'),
    });
    release.open();
    expect((await fresh).status).toBe(200);
  });
});

describe('the stop route: a failing store', () => {
  const refuse = () => Promise.reject(new Error('connection reset'));

  it('answers 503 store-unavailable and names the operation that failed: stop, get of a settled intent, wait of a held stop', async () => {
    for (const operation of ['stop', 'get', 'wait'] as const) {
      const events: IdempotencyEvent[] = [];
      let broken = false;
      class Failing extends MemoryStore {
        override stop(key: string) {
          return broken && operation === 'stop' ? refuse() : super.stop(key);
        }
        override get(key: string) {
          return broken && operation === 'get' ? refuse() : super.get(key);
        }
        override wait(key: string, timeoutMs: number, signal?: AbortSignal) {
          return broken && operation === 'wait' ? refuse() : super.wait(key, timeoutMs, signal);
        }
      }
      const release = gate();
      const app = chatApp({
        store: new Failing(),
        onEvent: (event) => events.push(event),
        work: () => (operation === 'get' ? undefined : release.promise.then(() => undefined)),
      });
      const first = app.handle(chatRequest());
      await until(() => app.calls.length === 1);
      if (operation === 'get') await first; // settled: the stop reads the record
      broken = true;
      const stop = await app.handle(stopRequest({ Prefer: 'wait=1' }));
      expect(stop.status, operation).toBe(503);
      expect(await stop.json()).toMatchObject({ code: 'store-unavailable' });
      expect(events.filter((event) => event.type === 'store-error')).toMatchObject([{ operation }]);
      release.open();
      await first;
    }
  });
});
