import { type IdempotencyEvent, type IdempotencyStore, MemoryStore, runOnce } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, gate, recordOps } from '../support/server-support.js';
import { sleep } from '../support/sleep.js';

/** A store whose contents can be lost at once, as a Redis FLUSHALL or a restart without persistence would. */
function flushableStore(): { store: IdempotencyStore; flush(): void } {
  let inner = new MemoryStore();
  return { store: recordOps(() => inner), flush: () => (inner = new MemoryStore()) };
}

describe('createIdempotencyHandler: a record that vanished mid-work', () => {
  it('delivers the worker’s answer, stores it again, and never pays a second model call', async () => {
    const { store, flush } = flushableStore();
    const release = gate();
    const app = chatApp({ store, work: () => release.promise.then(() => undefined) });
    const first = app.handle(chatRequest());
    await sleep(10);
    flush(); // the store lost every record while the model ran
    release.open();
    const answer = await first;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ answer: 'echo: hello?', run: 1 });
    expect(app.events).toContainEqual(
      expect.objectContaining({ type: 'record-lost', operation: 'complete', reclaimed: true }),
    );

    const resend = await app.handle(chatRequest());
    expect(resend.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(await resend.json()).toEqual({ answer: 'echo: hello?', run: 1 });
    expect(app.calls).toHaveLength(1);
  });

  it('claims the intent again at the next heartbeat, so a resend meanwhile waits instead of running it twice', async () => {
    const { store, flush } = flushableStore();
    const release = gate();
    const app = chatApp({ store, leaseMs: 60, heartbeatMs: 10, work: () => release.promise.then(() => undefined) });
    const first = app.handle(chatRequest());
    await sleep(5);
    flush();
    await sleep(40); // a few heartbeats: the first one finds the record gone and claims it again
    const resend = await app.handle(chatRequest());
    expect(resend.status).toBe(202);
    release.open();
    expect((await first).status).toBe(200);
    expect(app.calls).toHaveLength(1);
    expect(app.events.filter((event) => event.type === 'lease-lost')).toEqual([]);
    expect(app.events).toContainEqual(expect.objectContaining({ type: 'record-lost', operation: 'renew', reclaimed: true }));
  });

  it('still fences a real successor: a zombie’s answer is never delivered over the successor’s', async () => {
    const store = new MemoryStore();
    const release = gate();
    // A worker whose heartbeats never reach the store (a partitioned instance).
    const unheard: IdempotencyStore = { ...recordOps(store), renew: async () => 'written' };
    const zombie = chatApp({ store: unheard, leaseMs: 30, work: () => release.promise.then(() => undefined) });
    const first = zombie.handle(chatRequest({ question: 'same' }));
    await sleep(50); // the lease lapsed without a heartbeat: a successor takes over and answers
    const successor = chatApp({ store, work: () => Response.json({ answer: 'successor' }) });
    expect(await (await successor.handle(chatRequest({ question: 'same' }))).json()).toEqual({ answer: 'successor' });
    release.open();
    const late = await first;
    expect(await late.json()).toEqual({ answer: 'successor' });
    expect(late.headers.get('X-Idempotent-Replayed')).toBe('true');
  });

  it('delivers its own answer when a fenced write finds nobody holding the intent any more', async () => {
    // A successor fenced the write, then its record vanished too (evicted, flushed).
    const store: IdempotencyStore = {
      ...recordOps(new MemoryStore()),
      complete: async () => 'fenced',
      get: async () => null,
    };
    const app = chatApp({ store });
    const answer = await app.handle(chatRequest());
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ answer: 'echo: hello?', run: 1 });
  });
});

describe('runOnce: a record that vanished mid-work', () => {
  it('returns the work’s value (stored again) instead of a LeaseLostError, and runs it once', async () => {
    const { store, flush } = flushableStore();
    const events: IdempotencyEvent[] = [];
    let runs = 0;
    const work = async (): Promise<string> => {
      runs += 1;
      await sleep(20);
      return 'summary';
    };
    const running = runOnce(store, 'orders:42', work, { onEvent: (event) => events.push(event), requestId: 'order-42' });
    await sleep(5);
    flush();
    expect(await running).toEqual({ value: 'summary', replayed: false });
    expect(await runOnce(store, 'orders:42', work)).toEqual({ value: 'summary', replayed: true });
    expect(runs).toBe(1);
    expect(events.every((event) => event.requestId === 'order-42')).toBe(true);
  });
});
