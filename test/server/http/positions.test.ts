/**
 * The position a request names (PROTOCOL.md § 14.5), read strictly: `Range: bytes=N-`
 * (with or without `X-Idempotent-Generation`) and `Last-Event-ID: <g>.<N>` resume; any
 * other form is ignored — the whole answer, never a tail, never a restart.
 */
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, gate, statusRequest } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';
import { heldAfterOneEvent, parseEvents, readEvents, sseAnswer, tokens } from '../../support/stream-support.js';

const ID = 'req-0000000001';
const TEXT = 'Once upon a time.';

/** A finished plain-text answer, and its generation. */
async function finishedText() {
  const app = chatApp({ work: () => new Response(TEXT, { headers: { 'Content-Type': 'text/plain' } }) });
  const fresh = await app.handle(chatRequest());
  expect(await fresh.text()).toBe(TEXT);
  return { app, generation: fresh.headers.get('X-Idempotent-Generation') ?? '' };
}

/** A finished three-event answer, its text and its generation. */
async function finishedEvents() {
  const app = chatApp({ work: () => sseAnswer(3) });
  const fresh = await app.handle(chatRequest());
  return { app, text: await fresh.text(), generation: fresh.headers.get('X-Idempotent-Generation') ?? '' };
}

describe('createIdempotencyHandler: the position a request names', () => {
  it.each([
    ['a closed range', 'bytes=5-9'],
    ['a suffix', 'bytes=-5'],
    ['several ranges', 'bytes=0-1, 5-'],
    ['another unit', 'kbytes=5-'],
    ['another unit ending in bytes', 'x-bytes=5-'],
    ['junk inside the unit', 'bytes5=5-'],
    ['junk after the offset', 'bytes=5x-'],
  ])('ignores a Range that is %s (%s): the whole answer, 200, no Content-Range', async (_, value) => {
    const { app, generation } = await finishedText();
    const replay = await app.handle(chatRequest({ headers: { Range: value, 'X-Idempotent-Generation': generation } }));
    expect(replay.status).toBe(200);
    expect(replay.headers.get('Content-Range')).toBeNull();
    expect(replay.headers.get('X-Idempotent-Restarted')).toBeNull();
    expect(await replay.text()).toBe(TEXT);
    expect(app.calls).toHaveLength(1);
  });

  it.each([
    ['empty', ''],
    ['not a number', '0x1'],
  ])(
    'reads a Range whose generation header is %s as one without: the tail of whichever generation answers',
    async (_, value) => {
      const { app } = await finishedText();
      const replay = await app.handle(chatRequest({ headers: { Range: 'bytes=5-', 'X-Idempotent-Generation': value } }));
      expect(replay.status).toBe(206);
      expect(replay.headers.get('Content-Range')).toBe('bytes 5-16/17');
      expect(replay.headers.get('X-Idempotent-Restarted')).toBeNull();
      expect(await replay.text()).toBe('upon a time.');
    },
  );

  it.each([
    ['generation 0', () => '0.5'],
    ['no generation', () => '.5'],
    ['a generation that is not a number', () => 'x.5'],
    ['a third part', (g: string) => `${g}.5.1`],
  ])('ignores a Last-Event-ID with %s: the whole answer replayed, no restart marker', async (_, lastId) => {
    const { app, text, generation } = await finishedEvents();
    const replay = await app.handle(chatRequest({ headers: { 'Last-Event-ID': lastId(generation) } }));
    expect(replay.status).toBe(200);
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(replay.headers.get('X-Idempotent-Restarted')).toBeNull();
    expect(await replay.text()).toBe(text);
  });

  it('resumes from a Last-Event-ID sent with spaces around it (Fetch trims a header value)', async () => {
    const { app, text, generation } = await finishedEvents();
    const first = parseEvents(text)[0]?.id ?? '';
    const resumed = await app.handle(chatRequest({ headers: { 'Last-Event-ID': `  ${first}\t` } }));
    expect(resumed.status).toBe(200);
    expect(tokens(parseEvents(await resumed.text()))).toEqual(['token 1', 'token 2']);
    expect(first.startsWith(`${generation}.`)).toBe(true);
  });

  it.each([
    ['no offset', (g: string) => `${g}.`],
    ['an offset that is not a number', (g: string) => `${g}.x`],
  ])('attaches a status read whose Last-Event-ID has %s from the start, then live', async (_, lastId) => {
    const go = gate();
    const app = chatApp({ work: () => heldAfterOneEvent(go.promise), flushMs: 1 });
    const fresh = await app.handle(chatRequest());
    const generation = fresh.headers.get('X-Idempotent-Generation') ?? '';
    // Attached: the head is logged (the first append goes out with the first flush).
    let attached: Response | undefined;
    for (let tries = 0; tries < 200 && !attached?.headers.get('X-Idempotent-Attached'); tries += 1) {
      await attached?.body?.cancel();
      attached = await app.handle(statusRequest(ID, { headers: { 'Last-Event-ID': lastId(generation) } }));
      if (!attached.headers.get('X-Idempotent-Attached')) await sleep(5);
    }
    expect(attached?.headers.get('X-Idempotent-Attached')).toBe('true');
    expect(attached?.headers.get('X-Idempotent-Restarted')).toBeNull();
    go.open();
    const [mine, theirs] = await Promise.all([fresh.text(), readEvents(attached as Response)]);
    expect(theirs.text).toBe(mine);
    expect(tokens(parseEvents(mine))).toEqual(['first', 'second']);
    expect(app.calls).toHaveLength(1);
  });
});
