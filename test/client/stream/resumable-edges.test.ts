/**
 * The resumable body's edges (PROTOCOL.md § 14.5, § 14.11): what it leaves behind (no
 * listener on the caller's signal, no backoff timer after an abort, the next connection
 * let go when the reader cancels during a reconnect), answers with no body on a resume,
 * which answers count as the same one (only a 206 continues; a fresh answer with no
 * generation is a restart), the last event of a stream that ends in a lone CR, and the
 * synthetic answer an error marker past the budget fails with.
 */
import { getEventListeners } from 'node:events';
import { type IntentFailedError, isAbortError, isAnswerRestartedError, isConnectionError } from 'answer-once';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { resumableBody } from '../../../src/client/stream/resumable-body.js';
import { G, REPLAYED_HEADERS, readAll, retryPolicy, rig, sse, text } from '../../support/resumable-rig.js';

const WHOLE = 'héllo wörld';
const upTo = (n: number) => Buffer.from(WHOLE).subarray(0, n);
const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;
/** Lets the body's reads and reconnects run (they are promise-driven), a bounded number of turns. */
const until = async (done: () => boolean) => {
  for (let n = 0; n < 200 && !done(); n += 1) await new Promise((resolve) => setImmediate(resolve));
};

afterEach(() => {
  vi.useRealTimers();
});

describe('what the body leaves behind', () => {
  it('leaves no listener on the caller’s signal once it ended, after a backoff too, or was cancelled', async () => {
    const caller = new AbortController();
    const ended = rig(
      { headers: sse(), chunks: ['data: a\n\n'], cut: true },
      [
        { headers: sse(), cut: true },
        { headers: sse(), chunks: ['data: b\n\n'] },
      ],
      { signal: caller.signal, retry: retryPolicy(3, 1, 1, () => 1) },
    );
    expect(await readAll(ended.body)).toMatchObject({ text: 'data: a\n\ndata: b\n\n', error: undefined });
    expect(ended.requests).toHaveLength(2);
    expect(abortListeners(caller.signal)).toBe(0);
    const cancelled = rig({ headers: sse(), chunks: ['data: a\n\n', 'data: b\n\n'] }, [], { signal: caller.signal });
    await cancelled.body.cancel('enough');
    expect(abortListeners(caller.signal)).toBe(0);
  });

  it('an abort during the backoff clears its timer: nothing is left to keep the process up', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const caller = new AbortController();
    const r = rig({ headers: sse(), cut: true }, [{ headers: sse(), cut: true }], {
      signal: caller.signal,
      retry: retryPolicy(5, 10_000, 10_000, () => 0.5),
    });
    const reading = readAll(r.body);
    await until(() => vi.getTimerCount() > 0);
    expect([r.requests.length, vi.getTimerCount()]).toEqual([1, 1]);
    caller.abort('stop');
    expect(isAbortError((await reading).error)).toBe(true);
    await until(() => false);
    expect(vi.getTimerCount()).toBe(0);
    expect(r.requests).toHaveLength(1);
  });

  it('cancel() during a reconnect resolves, settles once, and lets the connection that comes back go', async () => {
    let answer!: (response: Response) => void;
    let asked = 0;
    let nextCancelled = false;
    const settled: unknown[] = [];
    let sent = false;
    const first = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new TypeError('terminated'));
        sent = true;
        controller.enqueue(new TextEncoder().encode('data: a\n\n'));
      },
    });
    const body = resumableBody(new Response(first, { headers: sse() }), {
      requestId: 'req-edges-1',
      retry: retryPolicy(),
      replayedHeaders: REPLAYED_HEADERS,
      signal: undefined,
      emit: () => undefined,
      settle: (error) => settled.push(error),
      attempts: () => 1 + asked,
      reconnect: () => {
        asked += 1;
        return new Promise<Response>((resolve) => (answer = resolve));
      },
    });
    const reader = body.getReader();
    await reader.read();
    const second = reader.read();
    await until(() => asked > 0);
    await expect(reader.cancel('enough')).resolves.toBeUndefined();
    expect(await second).toEqual({ done: true, value: undefined });
    const next = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new TextEncoder().encode('data: b\n\n')),
      cancel: () => {
        nextCancelled = true;
      },
    });
    answer(new Response(next, { headers: sse() }));
    await until(() => nextCancelled);
    expect(nextCancelled).toBe(true);
    expect(settled).toEqual(['enough']);
    expect(asked).toBe(1);
  });
});

describe('a resume answered with no body', () => {
  const bodiless = (status: number, headers: Record<string, string> = {}) => ({ status, headers, bodiless: true });

  it('416: the answer is whole when its length is the offset, else a ConnectionError', async () => {
    const whole = rig({ headers: text(), chunks: [upTo(5)], cut: true }, [bodiless(416, { 'content-range': 'bytes */5' })]);
    expect(await readAll(whole.body)).toMatchObject({ text: WHOLE.slice(0, 4), error: undefined });
    const short = rig({ headers: text(), chunks: [upTo(5)], cut: true }, [bodiless(416, { 'content-range': 'bytes */9' })]);
    const { error } = await readAll(short.body);
    expect(isConnectionError(error)).toBe(true);
    expect((error as Error).cause).toMatchObject({ message: 'the server answered 416 at offset 5' });
  });

  it.each([
    ['another generation, after bytes', { headers: text() }, { headers: text(G + 1), bodiless: true }],
    ['a fresh answer with no generation, after replayed bytes', { headers: {} }, { headers: {}, bodiless: true }],
  ])('%s: AnswerRestartedError, not a TypeError', async (_, first, next) => {
    const r = rig({ ...first, chunks: [upTo(2)], cut: true }, [next]);
    expect(isAnswerRestartedError((await readAll(r.body)).error)).toBe(true);
  });
});

describe('which answer counts as the same one', () => {
  it('a body with no generation: an answer that is neither a replay nor has a generation, after bytes, is a restart', async () => {
    const r = rig({ headers: { 'content-type': 'text/plain' }, chunks: [upTo(3)], cut: true }, [
      { headers: { 'content-type': 'text/plain' }, chunks: [WHOLE] },
    ]);
    const { text: got, error } = await readAll(r.body);
    expect(got).toBe(WHOLE.slice(0, 2));
    expect(isAnswerRestartedError(error)).toBe(true);
    expect((error as { generation: unknown }).generation).toBeUndefined();
    expect(r.responses[1]!.cancelled()).toBe(true);
  });

  it('only a 206 continues: a 200 of the same generation is whole (its bytes skipped) even with a Content-Range', async () => {
    const length = Buffer.byteLength(WHOLE);
    const r = rig({ headers: text(), chunks: [upTo(2)], cut: true }, [
      { headers: { ...text(), 'content-range': `bytes 2-${length - 1}/${length}` }, chunks: [WHOLE] },
    ]);
    expect(await readAll(r.body)).toMatchObject({ text: WHOLE, error: undefined });
  });
});

describe('the end of an event stream', () => {
  it('hands on the last event when the body ends on its lone CR (a CR ends a line, § 9.2.6 of the SSE spec)', async () => {
    const r = rig({ headers: sse(), chunks: ['data: a\n\r'] }, []);
    expect(await readAll(r.body)).toEqual({ text: 'data: a\n\r', chunks: ['data: a\n\r'], error: undefined });
    expect(r.settled).toEqual([undefined]);
  });
});

describe('an error marker past the retry budget', () => {
  it('fails with a JSON answer carrying the marker’s code and status', async () => {
    const marker = 'event: answer-once.error\ndata: {"code":"model-down","status":503}\n\n';
    const r = rig({ headers: sse(), chunks: [marker] }, [], { retry: retryPolicy(0) });
    const { response } = (await readAll(r.body)).error as IntentFailedError;
    expect([response.status, response.headers.get('content-type')]).toEqual([503, 'application/json']);
    expect(await response.json()).toEqual({ code: 'model-down', status: 503 });
  });
});
