/**
 * Continued generations (PROTOCOL.md § 14.12): when the producer of a streamed answer dies
 * and the work runs again deterministically, the re-run reproduces the logged bytes and
 * continues that answer — every reader sees one answer, without a restart marker, no event
 * twice or missing. A re-run that differs is shown as a restart, as before.
 */

import { MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, gate } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';
import { frozen, parseEvents, range, readEvents, tokens } from '../../support/stream-support.js';

const encoder = new TextEncoder();
const ERROR_MARKER = /event: answer-once\.error\ndata: [^\n]*\n\n$/;

/**
 * An SSE answer of `data: <token>` events, `delayMs` apart, broken after `breakAfter` of
 * them, held before event `pause.at` until `pause.until`.
 */
function scripted(
  words: readonly string[],
  options: {
    delayMs?: number;
    breakAfter?: number;
    signal?: AbortSignal;
    pause?: { at: number; until: Promise<void> };
  } = {},
): Response {
  const { delayMs = 0, breakAfter, signal, pause } = options;
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index === pause?.at) await pause.until;
      if (signal?.aborted) return controller.error(signal.reason);
      if (index === breakAfter) return controller.error(new Error('model connection reset'));
      if (index >= words.length) return controller.close();
      if (delayMs > 0 && index > 0) await sleep(delayMs);
      controller.enqueue(encoder.encode(`data: ${words[index]}\n\n`));
      index += 1;
    },
  });
  return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
}

/** The last event id in `text` (what a reader's `Last-Event-ID` would be). */
const lastId = (text: string): string =>
  parseEvents(text)
    .filter((event) => event.id !== undefined)
    .at(-1)?.id ?? '';

describe('createIdempotencyHandler: a re-run that reproduces the logged answer continues it', () => {
  it('after a broken model stream: each reader resumes where it was, no restart marker, no token twice or missing', async () => {
    const words = range(16);
    let runs = 0;
    const app = chatApp({
      flushMs: 5,
      work: () => (runs++ === 0 ? scripted(words, { delayMs: 10, breakAfter: 7 }) : scripted(words, { delayMs: 5 })),
    });
    const fresh = await app.handle(chatRequest());
    await sleep(40);
    const attached = await app.handle(chatRequest({ headers: { Prefer: 'wait=5' } }));
    expect(attached.headers.get('X-Idempotent-Attached')).toBe('true');
    const generation = fresh.headers.get('X-Idempotent-Generation');
    const before = await Promise.all([fresh.text(), attached.text()]);
    for (const text of before) expect(text).toMatch(ERROR_MARKER); // the 502 marker: resend

    // Each reader resends from the last event it had: the first runs the work again.
    const [resent, alsoResent] = [
      await app.handle(chatRequest({ headers: { 'Last-Event-ID': lastId(before[0]!) } })),
      await app.handle(chatRequest({ headers: { 'Last-Event-ID': lastId(before[1]!) } })),
    ];
    const after = await Promise.all([resent.text(), alsoResent.text()]);
    const replay = await (await app.handle(chatRequest())).text();

    for (const response of [resent, alsoResent]) {
      expect(response.headers.get('X-Idempotent-Generation')).toBe(generation);
      expect(response.headers.get('X-Idempotent-Restarted')).toBeNull();
    }
    for (const [index, text] of before.entries()) {
      const seen = text.replace(ERROR_MARKER, '') + after[index]!;
      expect(seen).toBe(replay);
      expect(seen).not.toContain('answer-once.restart');
      expect(tokens(parseEvents(seen))).toEqual(words);
    }
    expect(app.calls).toHaveLength(2);
  });

  it('after its holder lost the lease: the takeover continues the answer for the reader attached before', async () => {
    const store = new MemoryStore();
    const frozenStore = frozen(store);
    const thawed = gate();
    const words = range(12);
    const dying = chatApp({
      store: frozenStore.store,
      leaseMs: 60_000, // lapses at frozenStore.lapse(), not before
      flushMs: 5,
      // It freezes after 4 words: it cannot finish the answer before its successor takes over.
      work: () => scripted(words, { delayMs: 40, pause: { at: 4, until: thawed.promise } }),
    });
    const healthy = chatApp({ store, flushMs: 5, work: () => scripted(words, { delayMs: 5 }) });

    const doomed = await dying.handle(chatRequest());
    const partial = await readEvents(doomed, 2);
    const attached = await healthy.handle(chatRequest({ headers: { Prefer: 'wait=5' } }));
    expect(attached.headers.get('X-Idempotent-Attached')).toBe('true');
    const generation = attached.headers.get('X-Idempotent-Generation');
    // Its lease lapses (the holder stopped renewing): the attached reader is told to resend.
    await frozenStore.lapse();
    const told = await attached.text();
    expect(told).toMatch(ERROR_MARKER);

    const resumed = await healthy.handle(chatRequest({ headers: { 'Last-Event-ID': lastId(told) } }));
    expect(resumed.headers.get('X-Idempotent-Generation')).toBe(generation);
    expect(resumed.headers.get('X-Idempotent-Restarted')).toBeNull();
    const seen = told.replace(ERROR_MARKER, '') + (await resumed.text());
    const replay = await healthy.handle(chatRequest());
    expect(replay.headers.get('X-Idempotent-Generation')).toBe(generation);
    expect(seen).toBe(await replay.text());
    expect(seen).not.toContain('answer-once.restart');
    expect(tokens(parseEvents(seen))).toEqual(words);
    // The dead holder's own first caller resumes too, from where it was.
    const own = await healthy.handle(chatRequest({ headers: { 'Last-Event-ID': partial.events.at(-1)?.id ?? '' } }));
    expect(partial.text + (await own.text())).toBe(seen);
    thawed.open(); // the zombie wakes to a fenced append
    await partial.reader.cancel();
    expect([dying.calls.length, healthy.calls.length]).toEqual([1, 1]);
  });

  it('keeps a stop at a reader’s position in the continued answer, and replays it stopped there', async () => {
    const words = range(40);
    let runs = 0;
    const app = chatApp({
      flushMs: 5,
      work: ({ context }) =>
        runs++ === 0
          ? scripted(words, { delayMs: 5, breakAfter: 4 })
          : scripted(words, { delayMs: 20, signal: context.signal }),
    });
    const before = await (await app.handle(chatRequest())).text();
    const resent = await app.handle(chatRequest({ headers: { 'Last-Event-ID': lastId(before) } }));
    const generation = resent.headers.get('X-Idempotent-Generation');
    const shown = await readEvents(resent, 3); // what the reader showed before it stopped
    const at = shown.events.at(-1)?.id ?? '';
    const stop = await app.handle(
      new Request('http://app.test/api/status/req-0000000001', {
        method: 'DELETE',
        headers: { Authorization: 'Bearer alice', 'Last-Event-ID': at },
      }),
    );
    expect(stop.status).toBe(202);
    await shown.reader.cancel();
    await sleep(100); // the holder stops within a flush window
    const replay = await app.handle(chatRequest({ headers: { Prefer: 'wait=5' } }));
    expect(replay.headers.get('X-Idempotent-Stopped')).toBe('true');
    expect(replay.headers.get('X-Idempotent-Generation')).toBe(generation);
    const events = parseEvents(await replay.text());
    expect(tokens(events)).toEqual(range(7));
    expect(events.at(-1)).toMatchObject({ event: 'answer-once.stopped' });
    expect(events.at(-2)?.id).toBe(at);
  });

  it('continues a body that is not an event stream from the reader’s byte: a 206 of the same generation', async () => {
    const chunks = range(12, 'chunk ').map((chunk) => `${chunk};`);
    let runs = 0;
    const plain = (breakAfter?: number): Response => {
      let index = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (index === breakAfter) return controller.error(new Error('model connection reset'));
          if (index >= chunks.length) return controller.close();
          if (index > 0) await sleep(5);
          controller.enqueue(encoder.encode(chunks[index]));
          index += 1;
        },
      });
      return new Response(body, { headers: { 'Content-Type': 'text/plain' } });
    };
    const app = chatApp({ flushMs: 5, work: () => plain(runs++ === 0 ? 5 : undefined) });
    const fresh = await app.handle(chatRequest());
    const generation = fresh.headers.get('X-Idempotent-Generation') ?? '';
    const reader = fresh.body!.getReader();
    let had = '';
    for (;;) {
      const next = await reader.read().catch(() => undefined); // the body breaks off: resend
      if (!next || next.done) break;
      had += new TextDecoder().decode(next.value);
    }
    const resent = await app.handle(
      chatRequest({ headers: { Range: `bytes=${had.length}-`, 'X-Idempotent-Generation': generation } }),
    );
    expect(resent.status).toBe(206);
    expect(resent.headers.get('Content-Range')).toBe(`bytes ${had.length}-9007199254740991/*`);
    expect(resent.headers.get('X-Idempotent-Generation')).toBe(generation);
    expect(resent.headers.get('X-Idempotent-Restarted')).toBeNull();
    expect(had + (await resent.text())).toBe(chunks.join(''));
    expect(await (await app.handle(chatRequest())).text()).toBe(chunks.join(''));
    expect(app.calls).toHaveLength(2);
  });

  it('restarts the answer when the dead generation’s log was trimmed (past maxResponseBytes): not all of it can be compared', async () => {
    const words = range(30, 'a longer token, so the answer outgrows its bound ');
    let runs = 0;
    const app = chatApp({
      flushMs: 1,
      maxResponseBytes: 600,
      work: () => (runs++ === 0 ? scripted(words, { delayMs: 5, breakAfter: 20 }) : scripted(words, { delayMs: 2 })),
    });
    const before = await (await app.handle(chatRequest())).text();
    const resent = await app.handle(chatRequest({ headers: { 'Last-Event-ID': lastId(before) } }));
    expect(resent.headers.get('X-Idempotent-Restarted')).toBe('true');
    const events = parseEvents(await resent.text());
    expect(events[0]?.event).toBe('answer-once.restart');
    expect(tokens(events.slice(1))).toEqual(words);
  });

  it('shows a re-run that differs at some byte as a restart, as a re-run that reproduces nothing', async () => {
    const words = range(10);
    const other = [...words.slice(0, 3), ...range(7, 'other ')];
    let runs = 0;
    const app = chatApp({
      flushMs: 5,
      work: () => (runs++ === 0 ? scripted(words, { delayMs: 5, breakAfter: 6 }) : scripted(other, { delayMs: 5 })),
    });
    const fresh = await app.handle(chatRequest());
    const generation = fresh.headers.get('X-Idempotent-Generation');
    const before = await fresh.text();
    const resent = await app.handle(chatRequest({ headers: { 'Last-Event-ID': lastId(before) } }));
    expect(resent.headers.get('X-Idempotent-Restarted')).toBe('true');
    const regenerated = resent.headers.get('X-Idempotent-Generation');
    expect(Number(regenerated)).toBeGreaterThan(Number(generation));
    const events = parseEvents(await resent.text());
    expect(events[0]).toMatchObject({ event: 'answer-once.restart', id: `${regenerated}.0` });
    expect(tokens(events.slice(1))).toEqual(other);
    const replay = await app.handle(chatRequest());
    expect(replay.headers.get('X-Idempotent-Generation')).toBe(regenerated);
    expect(tokens(parseEvents(await replay.text()))).toEqual(other);
  });
});
