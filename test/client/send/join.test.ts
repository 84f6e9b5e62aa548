/**
 * Sends joined by `intentKey` (src/client/send/join.ts), as each caller sees them: one request
 * for every caller in flight; each caller's own `onEvent` gets the run's events until it
 * leaves (the same listener passed by two callers, once per event, until both left); a
 * caller leaving with its signal rejects with an AbortError counting the attempts and
 * polls made so far, while the others get the answer; the request is aborted only when
 * the last caller left; an already aborted signal rejects at once; no listener stays on
 * a caller's signal; once the key is free the next send is a new intent. The server is a
 * stub `fetch` whose answers the test releases by hand.
 */
import { getEventListeners } from 'node:events';
import { type AbortError, createClient, isAbortError, type SendEvent } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { until } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';

const BASE = 'http://127.0.0.1:9/';

interface Call {
  readonly id: string | null;
  readonly method: string;
  readonly path: string;
  readonly signal: AbortSignal;
  /** Resolves when the request's signal aborts. */
  readonly aborted: Promise<void>;
  /** Answers the request. */
  readonly answer: (response: Response) => void;
}

/** A server whose requests wait until the test answers them (or `script` answers at once). */
function stub(script?: (request: Request, n: number) => Response | undefined) {
  const calls: Call[] = [];
  const unclaimed: Call[] = [];
  const waiting: ((call: Call) => void)[] = [];
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const signal = init?.signal ?? request.signal;
    return new Promise<Response>((resolve, reject) => {
      const aborted = new Promise<void>((done) => {
        signal.addEventListener('abort', () => (done(), reject(signal.reason)), { once: true });
      });
      const id = request.headers.get('x-request-id');
      const call = { id, method: request.method, path: new URL(request.url).pathname, signal, aborted, answer: resolve };
      calls.push(call);
      // As fetch does: a request whose signal is already aborted never leaves.
      if (signal.aborted) return reject(signal.reason);
      const scripted = script?.(request, calls.length);
      if (scripted) resolve(scripted);
      else if (waiting.length > 0) waiting.shift()!(call);
      else unclaimed.push(call);
    });
  };
  /** The next request the script left unanswered, once it has arrived. */
  const next = () => {
    const call = unclaimed.shift();
    return call ? Promise.resolve(call) : new Promise<Call>((resolve) => waiting.push(resolve));
  };
  return { calls, next, fetch: fetch as typeof globalThis.fetch };
}

const answer = (body: unknown) => Response.json(body);
const types = (events: SendEvent[]) => events.map((event) => event.type);

/** A client over `server` whose own `onEvent` keeps the `settled` events it sees. */
function settledClient(server: ReturnType<typeof stub>) {
  const settled: SendEvent[] = [];
  const client = createClient({
    baseUrl: BASE,
    fetch: server.fetch,
    onEvent: (event) => event.type === 'settled' && settled.push(event),
  });
  return { client, settled };
}
const abortListeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;

describe('joined sends', () => {
  it("lets a caller leave with an AbortError counting the attempts and polls so far; the others' listeners and answer go on", async () => {
    // 503, then 202 to a status URL; its first poll 503, its second the answer.
    const server = stub((request, n) =>
      n === 1 || n === 3
        ? new Response('busy', { status: 503 })
        : n === 2
          ? new Response(null, { status: 202, headers: { location: '/status/1' } })
          : request.method === 'GET'
            ? answer({ text: 'hi' })
            : undefined,
    );
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, retry: { delay: 0 } });
    const leaving = new AbortController();
    const staying = new AbortController();
    const left: SendEvent[] = [];
    const stayed: SendEvent[] = [];
    const a = client
      .send('chat', {
        intentKey: 'k',
        signal: leaving.signal,
        onEvent: (event) => {
          left.push(event);
          // It leaves on the retry that follows the first poll.
          if (event.type === 'retry' && left.some((e) => e.type === 'poll')) leaving.abort();
        },
      })
      .catch((e: unknown) => e as AbortError);
    const b = client.send('chat', { intentKey: 'k', signal: staying.signal, onEvent: (event) => stayed.push(event) });
    const result = await b;
    const error = await a;
    expect(isAbortError(error)).toBe(true);
    expect(error).toMatchObject({ requestId: result.requestId, attempts: 2, polls: 1 });
    expect(result).toMatchObject({ data: { text: 'hi' }, attempts: 2, polls: 2 });
    expect(types(left)).toEqual(['attempt', 'retry', 'attempt', 'accepted', 'poll', 'retry']);
    expect(types(stayed)).toEqual(['attempt', 'retry', 'attempt', 'accepted', 'poll', 'retry', 'poll', 'settled']);
    expect(server.calls.map((call) => [call.method, call.path])).toEqual([
      ['POST', '/chat'],
      ['POST', '/chat'],
      ['GET', '/status/1'],
      ['GET', '/status/1'],
    ]);
    expect(server.calls.every((call) => !call.signal.aborted)).toBe(true);
  });

  it('keeps calling a listener two callers passed until both have left', async () => {
    const server = stub();
    const { client, settled } = settledClient(server);
    const seen: SendEvent[] = [];
    const onEvent = (event: SendEvent) => seen.push(event);
    const leaving = new AbortController();
    const a = client.send('chat', { intentKey: 'k', signal: leaving.signal, onEvent }).catch((e: unknown) => e);
    const b = client.send('chat', { intentKey: 'k', onEvent });
    const call = await server.next();
    leaving.abort();
    expect(isAbortError(await a)).toBe(true);
    call.answer(answer({ text: 'hi' }));
    await b;
    expect(types(seen)).toEqual(['attempt', 'settled']);
    // Both leave: the run's end reaches the client's onEvent, not theirs.
    const both: SendEvent[] = [];
    const [one, two] = [new AbortController(), new AbortController()];
    const listener = (event: SendEvent) => both.push(event);
    const c = client.send('chat', { intentKey: 'j', signal: one.signal, onEvent: listener }).catch((e: unknown) => e);
    const d = client.send('chat', { intentKey: 'j', signal: two.signal, onEvent: listener }).catch((e: unknown) => e);
    await server.next();
    one.abort();
    two.abort();
    expect([isAbortError(await c), isAbortError(await d)]).toEqual([true, true]);
    await until(() => settled.length === 2);
    expect(types(both)).toEqual(['attempt']);
  });

  it('aborts the request when the last caller leaves, and frees the key for the next send at once', async () => {
    const server = stub();
    const { client, settled } = settledClient(server);
    const one = new AbortController();
    const two = new AbortController();
    const a = client.send('chat', { intentKey: 'k', signal: one.signal }).catch((e: unknown) => e);
    const b = client.send('chat', { intentKey: 'k', signal: two.signal }).catch((e: unknown) => e);
    const first = await server.next();
    one.abort();
    expect(isAbortError(await a)).toBe(true);
    expect(first.signal.aborted).toBe(false);
    two.abort();
    expect(isAbortError(await b)).toBe(true);
    await first.aborted;
    // Sent before the aborted run has settled: a new intent, which later sends join.
    const c = client.send('chat', { intentKey: 'k' });
    const second = await server.next();
    await until(() => settled.length > 0);
    await sleep(0);
    expect(settled[0]).toMatchObject({ requestId: first.id, outcome: 'failed' });
    const d = client.send('chat', { intentKey: 'k' });
    second.answer(answer({ text: 'hi' }));
    expect(await d).toBe(await c);
    expect(server.calls.map((call) => call.id)).toEqual([first.id, second.id]);
    expect(second.id).not.toBe(first.id);
  });

  it('rejects a caller whose signal is already aborted at once, sending nothing for it', async () => {
    const server = stub((_request, n) => (n === 1 ? answer({ text: 'not for an aborted caller' }) : undefined));
    const client = createClient({ baseUrl: BASE, fetch: server.fetch });
    const error = await client.send('chat', { intentKey: 'k', signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(error).toMatchObject({ attempts: 0, polls: 0 });
    expect(server.calls.every((call) => call.signal.aborted)).toBe(true);
    // Joining a run in flight: only that caller is turned away.
    const staying = client.send('chat', { intentKey: 'k', signal: new AbortController().signal });
    const call = await server.next();
    const late = await client.send('chat', { intentKey: 'k', signal: AbortSignal.abort() }).catch((e: unknown) => e);
    expect(isAbortError(late)).toBe(true);
    expect(call.signal.aborted).toBe(false);
    call.answer(answer({ text: 'hi' }));
    await expect(staying).resolves.toMatchObject({ data: { text: 'hi' } });
    expect(server.calls.filter((each) => !each.signal.aborted)).toEqual([call]);
  });

  it("leaves no listener on a caller's signal once it left or the send settled", async () => {
    const server = stub();
    const client = createClient({ baseUrl: BASE, fetch: server.fetch });
    const leaving = new AbortController();
    const staying = new AbortController();
    const a = client.send('chat', { intentKey: 'k', signal: leaving.signal }).catch((e: unknown) => e);
    const b = client.send('chat', { intentKey: 'k', signal: staying.signal });
    const call = await server.next();
    expect(abortListeners(leaving.signal)).toBe(1);
    leaving.abort();
    await a;
    expect(abortListeners(leaving.signal)).toBe(0);
    call.answer(answer({ text: 'hi' }));
    await b;
    expect(abortListeners(staying.signal)).toBe(0);
  });
});
