/**
 * Streamed answers on plain `Request`s (PROTOCOL.md § 14): through to the first caller,
 * attached and resumed by position, replayed byte for byte, restarted after a producer
 * died, failed with a marker, stopped through the store.
 */

import { MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, gate, heldResend, notingCalls, statusRequest, until } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';
import { parseEvents, range, readEvents, readRest, sseAnswer, tokens } from '../../support/stream-support.js';

const ID = 'req-0000000001';

describe('createIdempotencyHandler: streamed answers', () => {
  it('streams an SSE answer to its first caller as it is produced, each event carrying its position', async () => {
    const next = gate();
    const app = chatApp({ work: () => sseAnswer(2, { hold: undefined, delayMs: 0 }) });
    const slow = chatApp({
      store: app.store,
      work: () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode('data: first\n\n'));
              await next.promise;
              controller.enqueue(new TextEncoder().encode('data: second\n\n'));
              controller.close();
            },
          }),
          { headers: { 'Content-Type': 'text/event-stream' } },
        ),
    });
    const response = await slow.handle(chatRequest({ id: 'req-slow-00001' }));
    const generation = response.headers.get('X-Idempotent-Generation');
    expect(generation).toMatch(/^\d+$/);
    const first = await readEvents(response, 1);
    // The first event arrived while the model was still held at its gate.
    expect(first.events).toEqual([{ data: 'first', id: `${generation}.${first.text.length}`, event: undefined }]);
    next.open();
    const { text } = await readRest(first);
    const all = first.text + text;
    expect(parseEvents(all).map(({ id }) => id)).toEqual([
      `${generation}.${first.text.length}`,
      `${generation}.${all.length}`,
    ]);
    expect(response.headers.get('X-Idempotent-Replayed')).toBeNull();
    expect(response.headers.get('X-Idempotent-Attached')).toBeNull();
    expect(slow.calls).toHaveLength(1);
  });

  it('replays a finished 2,000-event answer byte for byte, flagged replayed, without running again', async () => {
    const app = chatApp({ work: () => sseAnswer(2_000) });
    const fresh = await (await app.handle(chatRequest())).text();
    const replay = await app.handle(chatRequest());
    expect(await replay.text()).toBe(fresh);
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(tokens(parseEvents(fresh))).toEqual(range(2_000));
    expect(app.calls).toHaveLength(1);
  });

  it('resumes after the k-th event with Last-Event-ID: events k+1…n exactly once, one model call', async () => {
    const app = chatApp({ work: () => sseAnswer(20, { delayMs: 5 }) });
    const first = await readEvents(await app.handle(chatRequest()), 7);
    await first.reader.cancel(); // the connection broke after 7 events
    const lastId = first.events.at(-1)?.id ?? '';
    const resumed = await app.handle(chatRequest({ headers: { 'Last-Event-ID': lastId } }));
    const rest = await readEvents(resumed);
    expect([...tokens(first.events), ...tokens(rest.events)]).toEqual(range(20));
    expect(app.calls).toHaveLength(1);
    // Once finished, the same position gets the same tail, replayed.
    const again = await app.handle(chatRequest({ headers: { 'Last-Event-ID': lastId } }));
    expect(await again.text()).toBe(rest.text);
    expect(again.headers.get('X-Idempotent-Replayed')).toBe('true');
  });

  it('attaches a retry to the live answer — from the start, then live — with no second model call', async () => {
    const go = gate();
    const app = chatApp({ work: () => sseAnswer(10, { delayMs: 5, hold: go.promise }) });
    const fresh = await app.handle(chatRequest());
    await sleep(60); // the head is logged one flush window after the handler returned
    const attached = await app.handle(chatRequest({ headers: { Prefer: 'wait=5' } }));
    expect(attached.status).toBe(200);
    expect(attached.headers.get('X-Idempotent-Attached')).toBe('true');
    expect(attached.headers.get('Content-Type')).toBe('text/event-stream');
    go.open();
    const [mine, theirs] = await Promise.all([fresh.text(), attached.text()]);
    expect(theirs).toBe(mine);
    expect(tokens(parseEvents(theirs))).toEqual(range(10));
    expect(app.calls).toHaveLength(1);
    expect(app.events.filter(({ type }) => type === 'attached')).toHaveLength(1);
  });

  it('attaches through the status route too, and from a Last-Event-ID there', async () => {
    const go = gate();
    const app = chatApp({ work: () => sseAnswer(6, { delayMs: 5, hold: go.promise }) });
    const fresh = await app.handle(chatRequest());
    await sleep(60);
    go.open();
    const firstTwo = await readEvents(fresh, 2);
    await sleep(40);
    const viaStatus = await app.handle(statusRequest(ID, { headers: { 'Last-Event-ID': firstTwo.events[1]?.id ?? '' } }));
    expect(viaStatus.headers.get('X-Idempotent-Attached') ?? viaStatus.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(tokens(parseEvents(await viaStatus.text()))).toEqual(range(6).slice(2));
    await firstTwo.reader.cancel();
    expect(app.calls).toHaveLength(1);
  });

  it('waits as before (202, or Prefer: wait) while the work has not answered, then attaches', async () => {
    const answered = gate();
    const app = chatApp({ work: () => answered.promise.then(() => sseAnswer(3)) });
    const fresh = app.handle(chatRequest());
    await until(() => app.calls.length === 1);
    expect((await app.handle(chatRequest())).status).toBe(202);
    const attachedOrReplayed = await heldResend(app, answered, 20);
    expect(attachedOrReplayed.status).toBe(200);
    expect(attachedOrReplayed.headers.get('Preference-Applied')).toBe('wait=5');
    expect(tokens(parseEvents(await attachedOrReplayed.text()))).toEqual(range(3));
    expect(tokens(parseEvents(await (await fresh).text()))).toEqual(range(3));
    expect(app.calls).toHaveLength(1);
  });

  it('resumes any body by byte offset: 206 with Content-Range, live and finished; 416 past the end', async () => {
    const go = gate();
    const words = ['Once ', 'upon ', 'a ', 'time.'];
    const app = chatApp({
      work: () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode(words[0]));
              await go.promise;
              for (const word of words.slice(1)) {
                controller.enqueue(new TextEncoder().encode(word));
                await sleep(5);
              }
              controller.close();
            },
          }),
          { headers: { 'Content-Type': 'text/plain' } },
        ),
    });
    const fresh = await app.handle(chatRequest());
    const generation = fresh.headers.get('X-Idempotent-Generation') ?? '';
    await sleep(60);
    const live = await app.handle(chatRequest({ headers: { Range: 'bytes=2-', 'X-Idempotent-Generation': generation } }));
    expect(live.status).toBe(206);
    expect(live.headers.get('Content-Range')).toBe('bytes 2-9007199254740991/*');
    go.open();
    expect(await live.text()).toBe('ce upon a time.');
    expect(await fresh.text()).toBe('Once upon a time.');

    const done = await app.handle(chatRequest({ headers: { Range: 'bytes=5-', 'X-Idempotent-Generation': generation } }));
    expect(done.status).toBe(206);
    expect(done.headers.get('Content-Range')).toBe('bytes 5-16/17');
    expect(await done.text()).toBe('upon a time.');
    const past = await app.handle(chatRequest({ headers: { Range: 'bytes=17-' } }));
    expect(past.status).toBe(416);
    expect(past.headers.get('Content-Range')).toBe('bytes */17');
    const other = await app.handle(chatRequest({ headers: { Range: 'bytes=5-', 'X-Idempotent-Generation': '1' } }));
    expect(other.status).toBe(200);
    expect(other.headers.get('X-Idempotent-Restarted')).toBe('true');
    expect(await other.text()).toBe('Once upon a time.');
    expect(app.calls).toHaveLength(1);
  });

  it('tells an EventSource at the end of a finished answer to stop reconnecting (204)', async () => {
    const app = chatApp({ work: () => sseAnswer(3) });
    const { events } = await readEvents(await app.handle(chatRequest()));
    const end = await app.handle(chatRequest({ headers: { 'Last-Event-ID': events.at(-1)?.id ?? '' } }));
    expect(end.status).toBe(204);
  });

  it('stores a JSON answer as a one-chunk log at the cost of 0.1: acquire and complete, no append; a replay reads, and marks its call avoided once', async () => {
    const calls: string[] = [];
    const store = new MemoryStore();
    const counted = notingCalls(store, calls);
    const app = chatApp({ store: counted });
    const fresh = await app.handle(chatRequest());
    expect(await fresh.json()).toEqual({ answer: 'echo: hello?', run: 1 });
    expect(fresh.headers.get('X-Idempotent-Generation')).toMatch(/^\d+$/);
    expect(calls).toEqual(['acquire', 'complete']);
    for (let i = 0; i < 3; i += 1) {
      const replay = await app.handle(chatRequest());
      expect(await replay.json()).toEqual({ answer: 'echo: hello?', run: 1 });
    }
    await sleep(0); // the first replay's mark, after its body ended
    expect(calls).toEqual(['acquire', 'complete', 'acquire', 'markAvoided', 'acquire', 'acquire']);
  });

  it('keeps streaming into the log when the first caller disconnects; the retry gets the whole answer', async () => {
    const app = chatApp({ work: () => sseAnswer(30, { delayMs: 2 }) });
    const fresh = await readEvents(await app.handle(chatRequest()), 2);
    await fresh.reader.cancel();
    await until(() => app.events.some(({ type }) => type === 'completed'));
    const replay = await app.handle(chatRequest());
    expect(tokens(parseEvents(await replay.text()))).toEqual(range(30));
    expect(app.calls).toHaveLength(1);
  });
});
