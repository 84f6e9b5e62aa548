/**
 * Streamed answers that go wrong (PROTOCOL.md § 14.7, § 14.8): a producer that died or
 * froze, a broken model stream, a stop, a store that refuses an append.
 */

import { type IdempotencyStore, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, expectStopped, gate, until } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';
import { frozen, parseEvents, range, readEvents, readRest, sseAnswer, tokens } from '../../support/stream-support.js';

const ID = 'req-0000000001';

describe('createIdempotencyHandler: when a streamed answer goes wrong', () => {
  it('marks a broken SSE stream with the error marker, for the caller and attached readers, and runs again on resend', async () => {
    const go = gate();
    let runs = 0;
    const app = chatApp({
      work: () => (runs++ === 0 ? sseAnswer(10, { breakAfter: 4, delayMs: 5, hold: go.promise }) : sseAnswer(2)),
    });
    const fresh = await app.handle(chatRequest());
    await sleep(60);
    const attached = await app.handle(chatRequest({ headers: { Prefer: 'wait=5' } }));
    go.open();
    for (const text of await Promise.all([fresh.text(), attached.text()])) {
      const events = parseEvents(text);
      expect(tokens(events)).toEqual(range(4));
      expect(events.at(-1)).toMatchObject({ event: 'answer-once.error', data: '{"code":"intent-failed","status":502}' });
    }
    const again = await app.handle(chatRequest());
    expect(tokens(parseEvents(await again.text()))).toEqual(range(2));
    expect(app.calls).toHaveLength(2);
  });

  it('after the producer died: its readers are told, a resume gets the restart marker, then generation 2 from its start', async () => {
    const store = new MemoryStore();
    const frozenStore = frozen(store);
    const dying = chatApp({
      store: frozenStore.store,
      leaseMs: 60_000, // lapses at frozenStore.lapse(), not before
      work: () => sseAnswer(1_000, { prefix: 'old ', delayMs: 10 }),
    });
    const healthy = chatApp({ store, work: () => sseAnswer(5, { prefix: 'new ' }) });

    const doomed = await dying.handle(chatRequest());
    const partial = await readEvents(doomed, 3);
    const lastOld = partial.events.at(-1)?.id ?? '';
    await frozenStore.logged();
    const attached = await healthy.handle(chatRequest({ headers: { Prefer: 'wait=5' } })); // attached to generation 1 on "another instance"
    expect(attached.headers.get('X-Idempotent-Attached')).toBe('true');
    // Generation 1's lease lapses (its holder stopped renewing): the attached reader is told to resend.
    await frozenStore.lapse();
    const toldEvents = parseEvents(await attached.text());
    expect(toldEvents.at(-1)).toMatchObject({ event: 'answer-once.error', data: '{"code":"intent-failed","status":503}' });

    const resumed = await healthy.handle(chatRequest({ headers: { 'Last-Event-ID': lastOld } }));
    expect(resumed.headers.get('X-Idempotent-Restarted')).toBe('true');
    const generation2 = resumed.headers.get('X-Idempotent-Generation');
    const events = parseEvents(await resumed.text());
    expect(events[0]).toMatchObject({ event: 'answer-once.restart', id: `${generation2}.0` });
    expect(events.slice(1).map(({ data }) => data)).toEqual(range(5, 'new '));
    expect(healthy.calls).toHaveLength(1);

    // The zombie's own caller gets no byte of its generation after the takeover, and ends with a marker.
    const zombieRest = await readRest(partial);
    expect(zombieRest.events.at(-1)).toMatchObject({ event: 'answer-once.error' });
    const replay = await healthy.handle(chatRequest());
    expect(tokens(parseEvents(await replay.text()))).toEqual(range(5, 'new '));
    expect(dying.events).toContainEqual(expect.objectContaining({ type: 'fenced' }));
  });

  it('stops the generation from another request: the work’s signal aborts, the partial answer is kept and replayed, the model never runs again', async () => {
    let aborted: AbortSignal | undefined;
    const app = chatApp({
      work: ({ context }) => {
        aborted = context.signal;
        return sseAnswer(10_000, { delayMs: 5, signal: context.signal });
      },
    });
    const fresh = await app.handle(chatRequest());
    const some = await readEvents(fresh, 3);
    const stopped = await app.handle(
      new Request(`http://app.test/api/status/${ID}`, {
        method: 'DELETE',
        headers: { Authorization: 'Bearer alice', Prefer: 'wait=5' },
      }),
    );
    expect(aborted?.aborted).toBe(true);
    expect(stopped.status).toBe(200);
    expect(stopped.headers.get('X-Idempotent-Stopped')).toBe('true');
    const stoppedText = await stopped.text();
    const events = parseEvents(stoppedText);
    expect(events.at(-1)).toMatchObject({ event: 'answer-once.stopped', data: '{}' });
    expect(tokens(events).slice(0, 3)).toEqual(tokens(some.events));
    expect(tokens(events).length).toBeLessThan(10_000);
    const rest = await readRest(some);
    expect(some.text + rest.text).toBe(stoppedText); // the first caller got exactly the kept answer

    const later = await app.handle(chatRequest());
    expect(await later.text()).toBe(stoppedText);
    expect(later.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(app.calls).toHaveLength(1);
  });

  it('stops an intent whose work has not answered yet: a 409 intent-stopped, kept, and the model never runs again', async () => {
    const app = chatApp({
      work: ({ context }) =>
        new Promise<Response>((_resolve, reject) => {
          context.signal.addEventListener('abort', () => reject(context.signal.reason));
        }),
    });
    const fresh = app.handle(chatRequest());
    await until(() => app.calls.length === 1);
    const stop = await app.handle(
      new Request(`http://app.test/api/status/${ID}`, { method: 'DELETE', headers: { Authorization: 'Bearer alice' } }),
    );
    expect(stop.status).toBe(202);
    expect(await stop.json()).toEqual({ requestId: ID, state: 'stopping', location: `/api/status/${ID}` });
    await expectStopped(await fresh);
    const later = await app.handle(chatRequest());
    expect(later.status).toBe(409);
    expect(later.headers.get('X-Idempotent-Stopped')).toBe('true');
    expect(app.calls).toHaveLength(1);
  });

  it('answers a stop of an unknown intent 404, and a store without logs 501', async () => {
    const app = chatApp();
    const unknown = await app.handle(
      new Request(`http://app.test/api/status/${ID}`, { method: 'DELETE', headers: { Authorization: 'Bearer alice' } }),
    );
    expect(unknown.status).toBe(404);
    const plain: IdempotencyStore = {
      acquire: (...args) => app.store.acquire(...args),
      renew: (...args) => app.store.renew(...args),
      complete: (...args) => app.store.complete(...args),
      fail: (...args) => app.store.fail(...args),
      get: (...args) => app.store.get(...args),
      wait: (...args) => app.store.wait(...args),
    };
    const buffered = chatApp({ store: plain });
    const unsupported = await buffered.handle(
      new Request(`http://app.test/api/status/${ID}`, { method: 'DELETE', headers: { Authorization: 'Bearer alice' } }),
    );
    expect(unsupported.status).toBe(501);
    expect(await unsupported.json()).toMatchObject({ code: 'stop-unsupported' });
  });

  it('past maxResponseBytes: the live stream goes on for attached readers; once it ended cleanly a later attempt gets 410', async () => {
    const go = gate();
    const more = gate();
    const app = chatApp({
      maxResponseBytes: 2_000,
      // 100 events ≥ 1 ms apart span many 10 ms batches: one is appended after the answer outgrew the limit.
      flushMs: 10,
      work: () => sseAnswer(120, { delayMs: 1, hold: go.promise, pause: { at: 100, until: more.promise } }),
    });
    const fresh = await app.handle(chatRequest());
    await sleep(60);
    const attached = await app.handle(chatRequest({ headers: { Prefer: 'wait=5' } }));
    go.open();
    const theirs = attached.text();
    const first = await readEvents(fresh, 100); // 100 events of 30 bytes or more: past 2,000 bytes, and the model waits there
    // The start is no longer kept: a new attempt from the start waits ("still running").
    await expect
      .poll(async () => {
        const attempt = await app.handle(chatRequest());
        await attempt.body?.cancel();
        return attempt.status;
      })
      .toBe(202);
    more.open();
    const mine = first.text + (await readRest(first)).text;
    expect(tokens(parseEvents(mine))).toEqual(range(120));
    expect(await theirs).toBe(mine);
    const later = await app.handle(chatRequest());
    expect(later.status).toBe(410);
    expect(await later.json()).toMatchObject({ code: 'response-not-replayable' });
    expect(app.calls).toHaveLength(1);
  });
});
