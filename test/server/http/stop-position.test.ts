/**
 * A stop that says where its reader was (PROTOCOL.md § 14.8): `DELETE <status>/<id>` with
 * `Last-Event-ID: <g>.<N>`. The stored answer ends at that event when the holder produced
 * more, so a replay, a resume and an attached reader show exactly what the stopping
 * reader showed; a position of another generation, or past what was produced, cuts nothing.
 */

import { MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, viewOf } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';
import { parseEvents, readEvents, readRest, sseAnswer, tokens } from '../../support/stream-support.js';

const ID = 'req-0000000001';

function stopAt(lastEventId: string | undefined, wait = true): Request {
  return new Request(`http://app.test/api/status/${ID}`, {
    method: 'DELETE',
    headers: {
      Authorization: 'Bearer alice',
      ...(wait && { Prefer: 'wait=5' }),
      ...(lastEventId && { 'Last-Event-ID': lastEventId }),
    },
  });
}

/** A chat app whose model streams `token i` every 5 ms until stopped. */
function streamingApp() {
  return chatApp({ work: ({ context }) => sseAnswer(10_000, { delayMs: 5, signal: context.signal }) });
}

describe('a stop that names the reader’s position', () => {
  it('ends the stored answer at the reader’s last event: the replay has exactly its tokens, then the stop marker', async () => {
    const app = streamingApp();
    const fresh = await app.handle(chatRequest());
    const seen = await readEvents(fresh, 3);
    await sleep(60); // the model goes on: the holder has produced well past the reader
    const stopped = await app.handle(stopAt(seen.events.at(-1)?.id));
    expect(stopped.status).toBe(200);
    expect(stopped.headers.get('X-Idempotent-Stopped')).toBe('true');
    const events = parseEvents(await stopped.text());
    expect(tokens(events)).toEqual(tokens(seen.events));
    expect(events.at(-1)).toMatchObject({ event: 'answer-once.stopped' });
    const replay = await app.handle(chatRequest());
    expect(tokens(parseEvents(await replay.text()))).toEqual(['token 0', 'token 1', 'token 2']);
    // The first caller was already past it: its own stream ends with the stop marker too.
    expect((await readRest(seen)).events.at(-1)).toMatchObject({ event: 'answer-once.stopped' });
    expect(app.calls).toHaveLength(1);
  });

  it('gives the stop marker the position after the kept events, so a resume from the last kept event gets only the marker', async () => {
    const app = streamingApp();
    const seen = await readEvents(await app.handle(chatRequest()), 2);
    await sleep(40);
    const last = seen.events.at(-1)?.id ?? '';
    await (await app.handle(stopAt(last))).text();
    const resumed = await app.handle(chatRequest({ headers: { 'Last-Event-ID': last } }));
    const events = parseEvents(await resumed.text());
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'answer-once.stopped' });
    const [generation, offset] = last.split('.');
    const after =
      Number(offset) + new TextEncoder().encode(`event: answer-once.stopped\ndata: {}\nid: ${events[0]?.id}\n\n`).byteLength;
    expect(events[0]?.id).toBe(`${generation}.${after}`);
  });

  it('sends an attached reader nothing past the stop’s position while the holder is stopping', async () => {
    const store = new MemoryStore();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The holder reads the stop's position before it completes: held here, it is still stopping.
    const slow = viewOf(store, { get: async (key: string) => (await held, store.get(key)) });
    const app = chatApp({ store: slow, work: ({ context }) => sseAnswer(10_000, { delayMs: 5, signal: context.signal }) });
    const seen = await readEvents(await app.handle(chatRequest()), 2);
    await sleep(80); // the log holds well past the reader
    expect((await app.handle(stopAt(seen.events.at(-1)?.id, false))).status).toBe(202);
    const attached = await app.handle(chatRequest({ headers: { Prefer: 'wait=5' } }));
    expect(attached.headers.get('X-Idempotent-Attached')).toBe('true');
    release();
    const events = parseEvents(await attached.text());
    expect(tokens(events)).toEqual(['token 0', 'token 1']);
    expect(events.at(-1)).toMatchObject({ event: 'answer-once.stopped' });
  });

  it('starts a reader that was already past the stop’s position again, with what was kept', async () => {
    const app = streamingApp();
    const seen = await readEvents(await app.handle(chatRequest()), 2);
    const attached = await app.handle(chatRequest({ headers: { Prefer: 'wait=5' } }));
    expect(attached.headers.get('X-Idempotent-Attached')).toBe('true');
    const ahead = await readEvents(attached, 6); // another tab, further on than the stopping reader
    await (await app.handle(stopAt(seen.events.at(-1)?.id))).text();
    const events = parseEvents((await readRest(ahead)).text);
    const restart = events.findIndex((event) => event.event === 'answer-once.restart');
    expect(restart).toBeGreaterThanOrEqual(0);
    expect(tokens(events.slice(restart))).toEqual(['token 0', 'token 1']);
    expect(events.at(-1)).toMatchObject({ event: 'answer-once.stopped' });
  });

  it('cuts nothing for a position of another generation, or one past what the holder produced', async () => {
    const app = streamingApp();
    const seen = await readEvents(await app.handle(chatRequest()), 3);
    const generation = Number(seen.events[0]?.id?.split('.')[0]);
    await sleep(40);
    const kept = tokens(parseEvents(await (await app.handle(stopAt(`${generation - 1}.40`))).text()));
    expect(kept.length).toBeGreaterThan(3);
    expect(kept.slice(0, 3)).toEqual(tokens(seen.events));

    const other = streamingApp();
    const seenOther = await readEvents(await other.handle(chatRequest()), 2);
    await sleep(40);
    const beyond = `${seenOther.events[0]?.id?.split('.')[0]}.999999999`;
    expect(tokens(parseEvents(await (await other.handle(stopAt(beyond))).text())).length).toBeGreaterThan(2);
  });
});
