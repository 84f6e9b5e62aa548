/**
 * `waitUntil`: on runtimes that end a request's work once its response is done or its
 * client gone (Workers, Vercel, Next.js's `after`), everything the handler does past its
 * answer is handed to the runtime as one promise per request. A fake runtime records
 * what it was handed; every store call the request makes happens before that promise
 * settles — so a runtime that keeps only what it was handed keeps the whole run.
 */

import { createIdempotencyHandler, type IdempotencyStore, MemoryStore, type WaitUntil } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, recordOps, statusRequest, until } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';
import { parseEvents, readEvents, sseAnswer, tokens } from '../../support/stream-support.js';

/** A runtime's `waitUntil`: records each promise handed to it and when it settled. */
function fakeRuntime(): { waitUntil: WaitUntil; handed: { promise: Promise<unknown>; settled: boolean }[] } {
  const handed: { promise: Promise<unknown>; settled: boolean }[] = [];
  const waitUntil: WaitUntil = (promise) => {
    const entry = { promise, settled: false };
    handed.push(entry);
    void promise.finally(() => (entry.settled = true));
  };
  return { waitUntil, handed };
}

/** `store`, noting each call it gets once `closed()` says the request's promise settled. */
function watched<S extends IdempotencyStore>(store: S, closed: () => boolean): { store: S; late: string[] } {
  const late: string[] = [];
  const view = new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (closed()) late.push(String(property));
        return value.apply(target, args);
      };
    },
  });
  return { store: view, late };
}

const TOKENS = 30;

describe('createIdempotencyHandler: waitUntil', () => {
  it('a streamed answer whose caller left mid-stream is finished inside the one promise handed to waitUntil', async () => {
    const runtime = fakeRuntime();
    const { store, late } = watched(new MemoryStore(), () => runtime.handed[0]?.settled === true);
    // A lease shorter than the answer: its renewals are part of what must be kept alive.
    const app = chatApp({
      store,
      leaseMs: 150,
      waitUntil: runtime.waitUntil,
      work: () => sseAnswer(TOKENS, { delayMs: 20 }),
    });
    const response = await app.handle(chatRequest());
    expect(runtime.handed).toHaveLength(1);
    const first = await readEvents(response, 2);
    await first.reader.cancel(); // the client disconnected
    expect(runtime.handed[0]!.settled).toBe(false); // the model is still answering into the log

    await runtime.handed[0]!.promise;
    await sleep(450); // three leases: a heartbeat or an append left outside the promise would show here
    expect(late).toEqual([]);
    // Settled only once the answer was whole and stored: a retry replays it, no second model call.
    const replay = await app.handle(chatRequest());
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(tokens(parseEvents(await replay.text()))).toEqual(Array.from({ length: TOKENS }, (_, i) => `token ${i}`));
    expect(app.calls).toHaveLength(1);
    expect(app.events.filter((event) => event.type === 'lease-lost')).toEqual([]);
  });

  it('an oversize answer on a store without logs is written inside the promise, after its caller had it', async () => {
    const runtime = fakeRuntime();
    const memory = new MemoryStore();
    const app = chatApp({
      store: recordOps(memory),
      maxResponseBytes: 64,
      waitUntil: runtime.waitUntil,
      work: () => sseAnswer(20, { delayMs: 10, prefix: 'a long token number ' }),
    });
    const response = await app.handle(chatRequest());
    await response.body!.cancel();
    expect(runtime.handed[0]!.settled).toBe(false);
    await runtime.handed[0]!.promise;
    const status = await app.handle(statusRequest('req-0000000001'));
    expect(status.status).toBe(410); // completed, too large to replay: its record was written
    expect(app.calls).toHaveLength(1);
  });

  it('hands one promise for a request that runs nothing, settled once it is answered', async () => {
    const runtime = fakeRuntime();
    const app = chatApp({ waitUntil: runtime.waitUntil });
    await (await app.handle(chatRequest())).text();
    const replay = await app.handle(chatRequest());
    const unsigned = await app.handle(chatRequest({ user: '' }));
    expect([replay.status, unsigned.status]).toEqual([200, 401]);
    expect(runtime.handed).toHaveLength(3);
    // As a runtime does, the bodies are sent: the replay's `answered` event goes out at its end.
    await Promise.all([replay.text(), unsigned.text()]);
    await until(() => runtime.handed.every((entry) => entry.settled));
  });

  it('an attached request: its `answered` event, with the usage its run reported, goes out inside its own promise', async () => {
    const runtime = fakeRuntime();
    const app = chatApp({
      waitUntil: runtime.waitUntil,
      work: ({ context }) => {
        context.reportUsage({ inputTokens: 12, outputTokens: 30 });
        return sseAnswer(10, { delayMs: 10 });
      },
    });
    const running = await app.handle(chatRequest());
    await sleep(40); // its first batch is in the log: a resend attaches to it
    const attached = await app.handle(chatRequest());
    const answeredWhenSettled: unknown[][] = [];
    for (const entry of runtime.handed) {
      void entry.promise.then(() =>
        answeredWhenSettled.push(app.events.filter((event) => event.type === 'answered').map((event) => event.outcome)),
      );
    }
    await Promise.all([running.text(), attached.text()]);
    await Promise.all(runtime.handed.map((entry) => entry.promise));
    await until(() => answeredWhenSettled.length === 2);
    // Each promise settled only once its own request's event had gone out.
    expect(answeredWhenSettled.map((outcomes) => [...outcomes].sort())).toEqual([
      ['attached', 'ran'],
      ['attached', 'ran'],
    ]);
    expect(app.events.find((event) => event.type === 'answered' && event.outcome === 'attached')).toMatchObject({
      usage: { inputTokens: 12, outputTokens: 30 },
    });
    expect(app.calls).toHaveLength(1);
  });

  it('takes a Workers ctx per call — `handle(request, ctx)` calls its waitUntil as a method — over the option', async () => {
    const fallback = fakeRuntime();
    const handed: Promise<unknown>[] = [];
    // workerd's ExecutionContext throws "Illegal invocation" when its method is called without it.
    const ctx = {
      waitUntil(this: unknown, promise: Promise<unknown>): void {
        if (this !== ctx) throw new TypeError('Illegal invocation');
        handed.push(promise);
      },
      passThroughOnException(): void {},
    };
    const app = chatApp({ waitUntil: fallback.waitUntil, cors: true, work: () => sseAnswer(5, { delayMs: 5 }) });
    const response = await app.handle(chatRequest({ headers: { Origin: 'http://elsewhere.test' } }), ctx);
    await response.text();
    expect(handed).toHaveLength(1);
    expect(fallback.handed).toHaveLength(0);
    // A call without its own waitUntil uses the option.
    await (await app.handle(chatRequest(), {})).text();
    expect(fallback.handed).toHaveLength(1);
  });

  it('a waitUntil that throws (Next.js `after` outside a request) fails the call before the work runs', async () => {
    const app = chatApp({
      waitUntil: () => {
        throw new Error('`after` was called outside a request scope');
      },
    });
    await expect(app.handle(chatRequest())).rejects.toThrow('outside a request scope');
    expect(app.calls).toHaveLength(0);
  });

  it('refuses a waitUntil that is not a function, naming it, at creation and per call', async () => {
    const options = { scope: () => ({ user: 'u', session: 's' }), handler: () => new Response('ok') };
    expect(() => createIdempotencyHandler({ ...options, waitUntil: 'later' as never })).toThrow(
      'answer-once: `waitUntil` must be a function; got "later".',
    );
    const handle = createIdempotencyHandler(options);
    await expect(handle(chatRequest(), { waitUntil: 5 as never })).rejects.toThrow(
      'answer-once: `waitUntil` must be a function; got 5.',
    );
    await expect(handle(chatRequest(), null as never)).rejects.toThrow('answer-once: `handle() options` must be');
  });
});
