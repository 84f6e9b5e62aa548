/**
 * The resumable body of an answer-once event stream (PROTOCOL.md § 14.4–14.7): what its
 * reader gets across cuts (each whole event once, nothing of an unfinished one), the
 * `Last-Event-ID` each resume carries (the generation and the offset after the last
 * whole event), the `reconnect` / `restart` events, the restart / error / stopped
 * markers, the retry budget and its errors, 204 / 416 / no body on a resume.
 */

import { type IntentFailedError, isConnectionError, isIntentFailedError } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { G, readAll, retryPolicy, rig, sse } from '../../support/resumable-rig.js';

const A = 'data: a\nid: 41.19\n\n';
const B = 'data: é€\r\n\r\n';
const len = (s: string) => Buffer.byteLength(s);
const RESTART = (g: number) => `event: answer-once.restart\ndata: {"generation":${g}}\nid: ${g}.0\n\n`;
const ERROR = 'event: answer-once.error\ndata: {"code":"model-down","status":503}\n\n';
const STOPPED = 'event: answer-once.stopped\ndata: {}\n\n';

/** Expects the reader to get A then B whole, resumed once (for `reason`) from the end of A. */
async function expectResumedAfterA(r: ReturnType<typeof rig>, reason: 'cut' | 'error-marker'): Promise<void> {
  const { text, error } = await readAll(r.body);
  expect(error).toBeUndefined();
  expect(text).toBe(A + B);
  const position = `${G}.${len(A)}`;
  expect(r.requests).toEqual([{ 'Last-Event-ID': position }]);
  expect(r.events).toEqual([{ type: 'reconnect', requestId: 'req-body-1', reconnects: 1, reason, position }]);
}

describe('an event stream cut mid-body', () => {
  it('resumes from the end of the last whole event: Last-Event-ID <g>.<offset>, one reconnect event, the rest once', async () => {
    const r = rig({ headers: sse(), chunks: [A, 'data: é'.slice(0, 6)], cut: true }, [{ headers: sse(), chunks: [B] }]);
    await expectResumedAfterA(r, 'cut');
    expect(r.settled).toEqual([undefined]);
  });

  it('cut mid-CRLF and mid-character: the event held back whole, the position after the one before', async () => {
    const bytes = Buffer.from(B);
    const r = rig({ headers: sse(), chunks: [A, bytes.subarray(0, 8), bytes.subarray(8, 11)], cut: true }, [
      { headers: sse(), chunks: [bytes.subarray(0, 7), bytes.subarray(7)] },
    ]);
    const { text, chunks } = await readAll(r.body);
    expect(text).toBe(A + B);
    expect(chunks).toEqual([A, B]);
    expect(r.requests).toEqual([{ 'Last-Event-ID': `${G}.${len(A)}` }]);
  });

  it('cut before any byte: resumes from <g>.0, a second cut counting on (reconnects 2, position of the new bytes)', async () => {
    const r = rig({ headers: sse(), chunks: [], cut: true }, [
      { headers: sse(), chunks: [A], cut: true },
      { headers: sse(), chunks: [B] },
    ]);
    const { text } = await readAll(r.body);
    expect(text).toBe(A + B);
    expect(r.requests).toEqual([{ 'Last-Event-ID': `${G}.0` }, { 'Last-Event-ID': `${G}.${len(A)}` }]);
    expect(r.events.map((e) => e.type === 'reconnect' && [e.reconnects, e.position])).toEqual([
      [1, `${G}.0`],
      [2, `${G}.${len(A)}`],
    ]);
  });

  it('counts on from where each resumed body started: a second cut names the offset after both bodies', async () => {
    const r = rig({ headers: sse(), chunks: [A], cut: true }, [
      { headers: sse(), chunks: [B], cut: true },
      { headers: sse(), chunks: ['data: c\n\n'] },
    ]);
    expect((await readAll(r.body)).text).toBe(`${A}${B}data: c\n\n`);
    expect(r.requests).toEqual([{ 'Last-Event-ID': `${G}.${len(A)}` }, { 'Last-Event-ID': `${G}.${len(A) + len(B)}` }]);
  });

  it('hands several events of one read on as one chunk', async () => {
    const r = rig({ headers: sse(), chunks: [`${A + B}data: c`] }, []);
    expect((await readAll(r.body)).chunks).toEqual([A + B]);
  });

  it('takes a content type in any case with parameters as an event stream', async () => {
    const headers = { 'content-type': 'Text/Event-Stream; charset=utf-8', 'x-idempotent-generation': ' 41 ' };
    const r = rig({ headers, chunks: [A, 'data: x'], cut: true }, [{ headers, chunks: [B] }]);
    expect((await readAll(r.body)).text).toBe(A + B);
    expect(r.requests).toEqual([{ 'Last-Event-ID': `${G}.${len(A)}` }]);
  });
});

describe('the markers', () => {
  it('restart after bytes: the marker is handed on, a restart event, the position counts from 0 in the new generation', async () => {
    const r = rig({ headers: sse(), chunks: [`${A + RESTART(42)}data: n\n\n`, 'data: x'], cut: true }, [
      { headers: sse(42), chunks: [B] },
    ]);
    const { text } = await readAll(r.body);
    expect(text).toBe(`${A + RESTART(42)}data: n\n\n${B}`);
    expect(r.events.filter((e) => e.type === 'restart')).toEqual([
      { type: 'restart', requestId: 'req-body-1', generation: 42 },
    ]);
    expect(r.requests).toEqual([{ 'Last-Event-ID': `42.${len('data: n\n\n')}` }]);
  });

  it('restart then a cut: resumes from <new g>.0, and a second restart right after is not handed on again', async () => {
    const r = rig({ headers: sse(), chunks: [A + RESTART(42)], cut: true }, [
      { headers: sse(42), chunks: [RESTART(44) + B] },
    ]);
    expect((await readAll(r.body)).text).toBe(A + RESTART(42) + B);
    expect(r.requests).toEqual([{ 'Last-Event-ID': '42.0' }]);
  });

  it('restart before any byte: nothing to void, so the marker is not handed on (the event still is)', async () => {
    const r = rig({ headers: sse(), chunks: [RESTART(43) + A] }, []);
    expect((await readAll(r.body)).text).toBe(A);
    expect(r.events).toEqual([{ type: 'restart', requestId: 'req-body-1', generation: 43 }]);
  });

  it('error marker: never handed on; the intent goes again from the position, once, and the body ends with the answer', async () => {
    const r = rig({ headers: sse(), chunks: [A + ERROR] }, [{ headers: sse(), chunks: [B] }]);
    await expectResumedAfterA(r, 'error-marker');
  });

  it('error marker past the retry budget: the body errors with IntentFailedError carrying its code and status', async () => {
    const r = rig({ headers: sse(), chunks: [ERROR] }, [{ headers: sse(), chunks: [ERROR] }], { retry: retryPolicy(1) });
    const { error } = await readAll(r.body);
    expect(isIntentFailedError(error)).toBe(true);
    expect(error).toMatchObject({
      status: 503,
      data: { code: 'model-down', status: 503 },
      attempts: 2,
      requestId: 'req-body-1',
    });
    expect((error as IntentFailedError).problem).toMatchObject({ title: 'model-down' });
    expect((error as IntentFailedError).response.status).toBe(503);
    expect(r.requests).toHaveLength(1);
    expect(r.settled).toEqual([error]);
  });

  it('an error marker with no code or status fails as intent-failed 502', async () => {
    const r = rig({ headers: sse(), chunks: ['event: answer-once.error\ndata: nope\n\n'] }, [], { retry: retryPolicy(0) });
    const { error } = await readAll(r.body);
    expect(error).toMatchObject({ status: 502, data: { code: 'intent-failed', status: 502 } });
    expect(r.requests).toEqual([]);
  });

  it('stopped marker: handed on, and the body ends there, cleanly, with no reconnect', async () => {
    const r = rig({ headers: sse(), chunks: [A + STOPPED] }, []);
    const { text, error } = await readAll(r.body);
    expect([text, error]).toEqual([A + STOPPED, undefined]);
    expect(r.requests).toEqual([]);
    expect(r.events).toEqual([]);
  });
});

describe('the retry budget', () => {
  it('gives up after `limit` reconnects with no byte in between: a ConnectionError (cut) with the break as cause', async () => {
    const r = rig(
      { headers: sse(), chunks: [A], cut: true },
      [
        { headers: sse(), cut: true },
        { headers: sse(), cut: true },
      ],
      {
        retry: retryPolicy(2),
      },
    );
    const { text, error } = await readAll(r.body);
    expect(text).toBe(A);
    expect(isConnectionError(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /^answer-once: the connection broke while the answer was arriving \(3 attempts\)/,
    );
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(r.requests).toHaveLength(2);
    expect(r.settled).toEqual([error]);
  });

  it('is not spent by a body that keeps bringing events: each handed-on event resets it', async () => {
    const events = ['data: 1\n\n', 'data: 2\n\n', 'data: 3\n\n'];
    const r = rig(
      { headers: sse(), chunks: [events[0]!], cut: true },
      [
        { headers: sse(), chunks: [events[1]!], cut: true },
        { headers: sse(), chunks: [events[2]!] },
      ],
      { retry: retryPolicy(1) },
    );
    const { text, error } = await readAll(r.body);
    expect([text, error]).toEqual([events.join(''), undefined]);
  });

  it('leaves at once on the first reconnect, and backs off (delay · 2^(n-1) · random) on the next ones', async () => {
    const r = rig(
      { headers: sse(), chunks: [A], cut: true },
      [
        { headers: sse(), cut: true },
        { headers: sse(), chunks: [B] },
      ],
      {
        retry: retryPolicy(3, 150, 10_000, () => 0.99),
      },
    );
    const start = Date.now();
    const { text } = await readAll(r.body);
    expect(text).toBe(A + B);
    expect(r.requestAt[0]! - start).toBeLessThan(100);
    const second = r.requestAt[1]! - r.requestAt[0]!;
    expect(second).toBeGreaterThanOrEqual(140);
    expect(second).toBeLessThan(280);
  });

  it('a reconnect that fails errors the body with its error', async () => {
    const boom = new Error('refused');
    const r = rig({ headers: sse(), chunks: [A], cut: true }, [boom]);
    const { text, error } = await readAll(r.body);
    expect([text, error]).toEqual([A, boom]);
    expect(r.settled).toEqual([boom]);
  });
});

describe('a resume that says the reader has it all', () => {
  it('204: the body ends cleanly', async () => {
    const r = rig({ headers: sse(), chunks: [A], cut: true }, [{ status: 204, bodiless: true }]);
    expect(await readAll(r.body)).toMatchObject({ text: A, error: undefined });
    expect(r.settled).toEqual([undefined]);
  });

  it('204 after an error marker: ends cleanly too', async () => {
    const r = rig({ headers: sse(), chunks: [A + ERROR] }, [{ status: 204, bodiless: true }]);
    expect(await readAll(r.body)).toMatchObject({ text: A, error: undefined });
  });

  it('a 200 with no body: ends cleanly', async () => {
    const r = rig({ headers: sse(), chunks: [A], cut: true }, [{ headers: sse(), bodiless: true }]);
    expect(await readAll(r.body)).toMatchObject({ text: A, error: undefined });
  });

  it('416 whose length is the offset: ends cleanly (its body let go); any other 416 is a ConnectionError', async () => {
    const whole = rig({ headers: sse(), chunks: [A], cut: true }, [
      { status: 416, headers: { 'content-range': `bytes */${len(A)}` }, chunks: ['x'] },
    ]);
    expect(await readAll(whole.body)).toMatchObject({ text: A, error: undefined });
    expect(whole.responses[1]!.cancelled()).toBe(true);
    for (const range of [`bytes */${len(A) + 1}`, `bytes 0-1/${len(A)}`, 'nonsense']) {
      const short = rig({ headers: sse(), chunks: [A], cut: true }, [{ status: 416, headers: { 'content-range': range } }]);
      const { error } = await readAll(short.body);
      expect(isConnectionError(error)).toBe(true);
      expect(((error as Error).cause as Error).message).toBe(`the server answered 416 at offset ${len(A)}`);
    }
  });
});
