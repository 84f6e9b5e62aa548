/**
 * The resumable body of a streamed answer that is not an event stream (PROTOCOL.md
 * § 14.5, § 14.11): a body with a generation resumes with `Range: bytes=N-` and the
 * generation, taking a 206 from N, skipping what it has of a 200 of the same
 * generation, and erroring with AnswerRestartedError when the answer it gets is another
 * one; a body without a generation skips the replayed answer's first bytes. Also: the
 * caller's abort and the reader's cancel() stop everything.
 */

import { type AnswerRestartedError, isAbortError, isAnswerRestartedError, isConnectionError } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { resumableBody } from '../../../src/client/stream/resumable-body.js';
import { G, REPLAYED_HEADERS, readAll, retryPolicy, rig, sse, text } from '../../support/resumable-rig.js';
import { sleep } from '../../support/sleep.js';

const WHOLE = 'héllo wörld';
const at = (n: number) => Buffer.from(WHOLE).subarray(n);
const upTo = (n: number) => Buffer.from(WHOLE).subarray(0, n);
const range = (n: number) => ({ 'content-range': `bytes ${n}-${Buffer.byteLength(WHOLE) - 1}/${Buffer.byteLength(WHOLE)}` });

describe('a body with a generation (range)', () => {
  it('cut after N bytes (mid-character): Range bytes=N- with the generation; a 206 from N continues it', async () => {
    const r = rig({ headers: text(), chunks: [upTo(2)], cut: true }, [
      { status: 206, headers: { ...text(), ...range(2) }, chunks: [at(2)] },
    ]);
    const { text: got, error } = await readAll(r.body);
    expect([got, error]).toEqual([WHOLE, undefined]);
    expect(r.requests).toEqual([{ Range: 'bytes=2-', 'X-Idempotent-Generation': String(G) }]);
    expect(r.events).toEqual([
      { type: 'reconnect', requestId: 'req-body-1', reconnects: 1, reason: 'cut', position: `${G}.2` },
    ]);
  });

  it('cut before any byte: sent again with no position, and whatever generation comes is read whole', async () => {
    const r = rig({ headers: text(), cut: true }, [
      { headers: text(G + 1), chunks: [upTo(3)], cut: true },
      {
        status: 206,
        headers: { ...text(G + 1), ...range(3) },
        chunks: [at(3)],
      },
    ]);
    expect((await readAll(r.body)).text).toBe(WHOLE);
    expect(r.requests).toEqual([{}, { Range: 'bytes=3-', 'X-Idempotent-Generation': String(G + 1) }]);
    expect(r.events.map((e) => e.type === 'reconnect' && e.position)).toEqual([undefined, `${G + 1}.3`]);
  });

  it('a 200 of the same generation (Range ignored): the bytes it has are skipped, across chunks, counted on', async () => {
    const bytes = Buffer.from(WHOLE);
    const r = rig({ headers: text(), chunks: [upTo(4)], cut: true }, [
      { headers: text(), chunks: [bytes.subarray(0, 1), bytes.subarray(1, 3), bytes.subarray(3, 6)], cut: true },
      { status: 206, headers: { ...text(), ...range(6) }, chunks: [at(6)] },
    ]);
    const { text: got, chunks } = await readAll(r.body);
    expect(got).toBe(WHOLE);
    expect(Buffer.concat(chunks.map((c) => Buffer.from(c, 'latin1'))).length).toBeGreaterThan(0);
    expect(r.requests[1]).toEqual({ Range: 'bytes=6-', 'X-Idempotent-Generation': String(G) });
  });

  it.each([
    ['another generation', { headers: text(G + 1), chunks: ['x'] }, G + 1],
    ['the same generation, restarted', { headers: { ...text(), 'x-idempotent-restarted': ' TRUE ' }, chunks: ['x'] }, G],
    ['a 206 from another offset', { status: 206, headers: { ...text(), ...range(1) }, chunks: ['x'] }, G],
    ['a 206 with no Content-Range', { status: 206, headers: text(), chunks: ['x'] }, G],
    [
      'a 206 with the unsatisfied form',
      { status: 206, headers: { ...text(), 'content-range': 'bytes */2' }, chunks: ['x'] },
      G,
    ],
    ['a 206 of another generation', { status: 206, headers: { ...text(G + 1), ...range(2) }, chunks: ['x'] }, G + 1],
    ['a garbled generation', { headers: { ...text(), 'x-idempotent-generation': '4x1' }, chunks: ['x'] }, undefined],
  ])(
    'after bytes were handed on, %s errors the body with AnswerRestartedError (its body let go)',
    async (_, next, generation) => {
      const r = rig({ headers: text(), chunks: [upTo(2)], cut: true }, [next]);
      const { text: got, error } = await readAll(r.body);
      expect(got).toBe(WHOLE.slice(0, 1));
      expect(isAnswerRestartedError(error)).toBe(true);
      expect((error as AnswerRestartedError).generation).toBe(generation);
      expect((error as AnswerRestartedError).retryable).toBe(true); // fetching again reads the new generation whole
      expect(r.responses[1]!.cancelled()).toBe(true);
      expect(r.settled).toEqual([error]);
    },
  );

  it("a restarted header that is not 'true' is no restart", async () => {
    const r = rig({ headers: text(), chunks: [upTo(2)], cut: true }, [
      { status: 206, headers: { ...text(), ...range(2), 'x-idempotent-restarted': 'false' }, chunks: [at(2)] },
    ]);
    expect(await readAll(r.body)).toMatchObject({ text: WHOLE, error: undefined });
  });

  it('a generation with another content type is a range body, not an event stream', async () => {
    const headers = { 'content-type': 'text/event-streams', 'x-idempotent-generation': String(G) };
    const r = rig({ headers, chunks: ['data: a'], cut: true }, [
      { status: 206, headers: { ...headers, 'content-range': 'bytes 7-9/10' }, chunks: ['\n\n'] },
    ]);
    expect((await readAll(r.body)).text).toBe('data: a\n\n');
    expect(r.requests).toEqual([{ Range: 'bytes=7-', 'X-Idempotent-Generation': String(G) }]);
  });

  it('a resume answered with no generation before any byte: the next cut resends with no position', async () => {
    const r = rig({ headers: text(), cut: true }, [
      { headers: { 'content-type': 'text/plain' }, chunks: [upTo(2)], cut: true },
      { headers: { 'content-type': 'text/plain' }, chunks: [upTo(2), at(2)] },
    ]);
    expect(await readAll(r.body)).toMatchObject({ text: WHOLE, error: undefined });
    expect(r.requests).toEqual([{}, {}]);
  });

  it('a 206 not from where it is, even at 0, is not taken', async () => {
    const r = rig({ headers: text(), cut: true }, [{ status: 206, headers: text(), chunks: [WHOLE] }]);
    expect(isAnswerRestartedError((await readAll(r.body)).error)).toBe(true);
  });

  it('a 204 after bytes (no generation on it): the answer is whole', async () => {
    const r = rig({ headers: text(), chunks: [upTo(5)], cut: true }, [{ status: 204, bodiless: true }]);
    expect(await readAll(r.body)).toMatchObject({ text: WHOLE.slice(0, 4), error: undefined });
  });

  it('416 whose length is what it has: the answer is whole', async () => {
    const r = rig({ headers: text(), chunks: [upTo(5)], cut: true }, [
      { status: 416, headers: { 'content-range': 'bytes */5' } },
    ]);
    expect(await readAll(r.body)).toMatchObject({ error: undefined });
  });
});

describe('a body with no generation (replay)', () => {
  it('is sent again with no position; a replayed answer has the bytes already handed on skipped', async () => {
    const r = rig({ headers: { 'content-type': 'text/plain' }, chunks: [upTo(3)], cut: true }, [
      { headers: { 'x-idempotent-replayed': 'true' }, chunks: [upTo(2), at(2)] },
    ]);
    expect(await readAll(r.body)).toMatchObject({ text: WHOLE, error: undefined });
    expect(r.requests).toEqual([{}]);
    expect(r.events.map((e) => e.type === 'reconnect' && e.position)).toEqual([undefined]);
  });

  it.each([
    ['the client’s own replayed header', { replayedHeaders: ['X-Cache-Replayed'] }, { 'x-cache-replayed': 'true' }],
    ['Stripe’s', {}, { 'idempotent-replayed': 'true' }],
  ])('a replay marked by %s is taken up past the bytes handed on', async (_, options, headers) => {
    const r = rig({ headers: {}, chunks: [upTo(3)], cut: true }, [{ headers, chunks: [upTo(3), at(3)] }], options);
    expect(await readAll(r.body)).toMatchObject({ text: WHOLE, error: undefined });
  });

  it('a header saying it is not a replay is not one: AnswerRestartedError after bytes', async () => {
    const r = rig({ headers: {}, chunks: [upTo(3)], cut: true }, [
      { headers: { 'x-idempotent-replayed': 'false' }, chunks: [WHOLE] },
    ]);
    expect(isAnswerRestartedError((await readAll(r.body)).error)).toBe(true);
  });

  it('never hands on an empty chunk, and a replay that brings nothing new spends the retry budget', async () => {
    const again = { headers: { 'x-idempotent-replayed': 'true' }, chunks: [upTo(3)], cut: true };
    const r = rig({ headers: {}, chunks: [upTo(3)], cut: true }, [again, again, again], { retry: retryPolicy(2) });
    const { chunks, error } = await readAll(r.body);
    expect(chunks).toEqual([WHOLE.slice(0, 2)]);
    expect(isConnectionError(error)).toBe(true);
    expect(r.requests).toHaveLength(2);
  });

  it('an event stream with no generation is replayed too, not resumed by event id', async () => {
    const r = rig({ headers: { 'content-type': 'text/event-stream' }, chunks: ['data: a\n\ndata'], cut: true }, [
      { headers: { 'x-idempotent-replayed': 'true' }, chunks: ['data: a\n\ndata: b\n\n'] },
    ]);
    expect((await readAll(r.body)).text).toBe('data: a\n\ndata: b\n\n');
    expect(r.requests).toEqual([{}]);
  });

  it('an answer that is not a replay after bytes were handed on: AnswerRestartedError; before any: read whole', async () => {
    const late = rig({ headers: {}, chunks: ['ab'], cut: true }, [{ headers: text(), chunks: ['xyz'] }]);
    const { error } = await readAll(late.body);
    expect(isAnswerRestartedError(error)).toBe(true);
    expect((error as AnswerRestartedError).generation).toBe(G);
    const early = rig({ headers: {}, cut: true }, [{ chunks: ['xyz'] }]);
    expect(await readAll(early.body)).toMatchObject({ text: 'xyz', error: undefined });
  });
});

describe('the caller and the reader', () => {
  it('an abort while reading errors the body at once with AbortError (the signal’s reason as cause) and lets the connection go', async () => {
    const caller = new AbortController();
    const r = rig({ headers: sse(), chunks: ['data: a\n\n', 'data: b'] }, [], { signal: caller.signal });
    const reader = r.body.getReader();
    await reader.read();
    caller.abort('gone');
    const error = await reader.read().catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect((error as Error).cause).toBe('gone');
    expect(r.responses[0]!.cancelled()).toBe(true);
    expect(r.settled).toEqual([error]);
    expect(r.requests).toEqual([]);
  });

  it('an abort that also breaks the connection is no cut: no reconnect, AbortError', async () => {
    const caller = new AbortController();
    const broken = new ReadableStream<Uint8Array>({
      start(controller) {
        caller.signal.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
      },
    });
    const events: unknown[] = [];
    const body = resumableBody(new Response(broken, { headers: sse() }), {
      requestId: 'r',
      retry: retryPolicy(),
      replayedHeaders: REPLAYED_HEADERS,
      signal: caller.signal,
      emit: (e) => events.push(e),
      settle: () => undefined,
      attempts: () => 1,
      reconnect: () => Promise.reject(new Error('sent')),
    });
    const reading = readAll(body);
    await sleep(5);
    caller.abort();
    expect(isAbortError((await reading).error)).toBe(true);
    expect(events).toEqual([]);
  });

  it('a signal aborted already: the body errors on the first read, nothing is sent', async () => {
    const r = rig({ headers: sse(), chunks: ['data: a\n\n'] }, [], { signal: AbortSignal.abort('early') });
    const { text: got, error } = await readAll(r.body);
    expect(got).toBe('');
    expect(isAbortError(error)).toBe(true);
    expect(r.settled).toHaveLength(1);
  });

  it('an abort during the backoff stops the resume with AbortError, sending nothing more', async () => {
    const caller = new AbortController();
    const r = rig({ headers: sse(), cut: true }, [{ headers: sse(), cut: true }], {
      signal: caller.signal,
      retry: retryPolicy(5, 10_000, 10_000, () => 0.5),
    });
    const reading = readAll(r.body);
    for (let n = 0; n < 100 && r.requests.length < 1; n += 1) await sleep(5);
    await sleep(20);
    caller.abort('stop');
    const { error } = await reading;
    expect(isAbortError(error)).toBe(true);
    expect(r.requests).toHaveLength(1);
  });

  it('cancel() lets the connection go, settles once with the reason, and sends nothing more', async () => {
    const r = rig({ headers: sse(), chunks: ['data: a\n\n', 'data: b\n\n'], cut: true }, []);
    const reader = r.body.getReader();
    await reader.read();
    await reader.cancel('enough');
    expect(r.responses[0]!.cancelled()).toBe(true);
    expect(r.settled).toEqual(['enough']);
    expect(r.requests).toEqual([]);
  });

  it('cancel() with no reason settles with an AbortError', async () => {
    const r = rig({ headers: sse(), chunks: ['data: a\n\n'] }, []);
    await r.body.cancel();
    expect(isAbortError(r.settled[0])).toBe(true);
    expect(r.settled).toHaveLength(1);
  });
});
