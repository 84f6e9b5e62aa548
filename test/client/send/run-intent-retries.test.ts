/**
 * The transport loop's retries and give-ups, over a stub `fetch`: a network error on the
 * send route or on a poll is retried after the delay the `retry` event announced; a
 * timeout is announced as one and, with `totalTimeout` far off, ends as a ConnectionError;
 * a cut body waits its announced delay too; an abort (while the body arrives, or surfacing
 * as a network error) and a deadline the wall clock passed are not announced as retries;
 * a 400 is final even when its body is cut; an unparseable answer names `parse`; the
 * parent ky instance's signal still reaches the request; every response not taken as the
 * answer has its body cancelled; a response for another request ID names it, cut short.
 */

import {
  createClient,
  isAbortError,
  isConnectionError,
  isDeadlineExceededError,
  isProtocolError,
  isResponseError,
  type SendEvent,
} from 'answer-once';
import ky from 'ky';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { untilAborted, whenAborted } from '../../support/in-flight.js';
import { cutBody, refused, scripted, watchedBody } from '../../support/scripted-fetch.js';

const BASE = 'http://127.0.0.1:9/';
/** Backoff that always draws its ceiling: the first retry waits `delay - 1` ms. */
const slow = { delay: 400, random: () => 0.999 };

afterEach(() => {
  vi.restoreAllMocks();
});

function listen() {
  const events: SendEvent[] = [];
  const retries = () => events.filter((event) => event.type === 'retry');
  return { events, retries, onEvent: (event: SendEvent) => void events.push(event) };
}

describe('retries that wait what they announced', () => {
  it('retries a network error on the send route after the announced delay', async () => {
    const { retries, onEvent } = listen();
    const server = scripted((_request, n) => (n === 1 ? refused() : Response.json({ ok: 1 })));
    const result = await createClient({ baseUrl: BASE, fetch: server.fetch, retry: slow, onEvent }).send('chat', {
      json: {},
    });
    expect(result).toMatchObject({ data: { ok: 1 }, attempts: 2 });
    expect(retries()).toMatchObject([{ reason: 'network', delay: 399 }]);
    expect(server.seen[1]!.at - server.seen[0]!.at).toBeGreaterThanOrEqual(395);
  });

  it('retries a PUT send on a network error, and a status poll (GET) too', async () => {
    const { retries, onEvent } = listen();
    const server = scripted((_request, n) => {
      if (n === 1 || n === 3) return refused();
      if (n === 2) return new Response(null, { status: 202, headers: { Location: '/status/1' } });
      return Response.json({ ok: 1 });
    });
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, retry: { delay: 0 }, onEvent });
    const result = await client.send('chat', { method: 'PUT', json: {} });
    expect(server.seen.map((s) => s.method)).toEqual(['PUT', 'PUT', 'GET', 'GET']);
    expect(result).toMatchObject({ attempts: 2, polls: 2 });
    expect(retries().map((event) => event.reason)).toEqual(['network', 'network']);
  });

  it('sends a cut answer again after the announced delay, telling beforeRetry hooks why', async () => {
    const { retries, onEvent } = listen();
    const codes: unknown[] = [];
    const server = scripted((_request, n) => (n === 1 ? new Response(cutBody('{"ok"')) : Response.json({ ok: 1 })));
    const client = createClient({
      baseUrl: BASE,
      fetch: server.fetch,
      retry: slow,
      onEvent,
      hooks: { beforeRetry: [({ error }) => void codes.push((error as { code?: unknown }).code)] },
    });
    const result = await client.send('chat', { json: {} });
    expect(result).toMatchObject({ data: { ok: 1 }, attempts: 2 });
    expect(retries()).toMatchObject([{ reason: 'response-cut', delay: 399 }]);
    expect(codes).toEqual(['response-cut']);
    expect(server.seen[1]!.at - server.seen[0]!.at).toBeGreaterThanOrEqual(395);
  });
});

describe('give-ups', () => {
  it('announces timed-out attempts as timeouts and, retries spent long before totalTimeout, rejects with a ConnectionError', async () => {
    const { retries, onEvent } = listen();
    const server = scripted(untilAborted);
    const client = createClient({
      baseUrl: BASE,
      fetch: server.fetch,
      timeout: 300,
      pollWait: 0,
      retry: { limit: 1, delay: 0 },
      onEvent,
    });
    const error = await client.send('chat', { json: {} }).catch((e: unknown) => e);
    expect(isConnectionError(error)).toBe(true);
    expect(isDeadlineExceededError(error)).toBe(false);
    expect(error).toMatchObject({ attempts: 2 });
    expect(retries().map((event) => event.reason)).toEqual(['timeout']);
  });

  it('does not announce a retry when the caller aborts while the answer body arrives', async () => {
    const { retries, onEvent } = listen();
    const controller = new AbortController();
    const server = scripted((request) => {
      const body = new ReadableStream<Uint8Array>({
        start: (stream) => {
          stream.enqueue(new TextEncoder().encode('{"partial'));
          whenAborted(request, (reason) => stream.error(reason));
        },
      });
      setTimeout(() => controller.abort(), 20);
      return new Response(body, { headers: { 'content-type': 'application/json' } });
    });
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, retry: { delay: 0 }, onEvent });
    const error = await client.send('chat', { json: {}, signal: controller.signal }).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(retries()).toEqual([]);
    expect(server.seen).toHaveLength(1);
  });

  it('does not announce a retry when an abort surfaces as a network error (a fetch that reports it so)', async () => {
    const { retries, onEvent } = listen();
    const controller = new AbortController();
    const server = scripted(
      (request) =>
        new Promise<Response>((_resolve, reject) => {
          whenAborted(request, () => reject(new TypeError('fetch failed')));
          setTimeout(() => controller.abort(), 20);
        }),
    );
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, retry: { delay: 0 }, onEvent });
    const error = await client.send('chat', { json: {}, signal: controller.signal }).catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    expect(retries()).toEqual([]);
  });

  it('does not retry a network error once totalTimeout has passed on the wall clock (a machine that slept)', async () => {
    // ky's own deadline runs on the monotonic clock, which a suspended machine may not advance.
    let clock = 1_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => clock);
    const { retries, onEvent } = listen();
    const server = scripted((_request, n) => {
      if (n > 1) return Response.json({ ok: 1 });
      clock += 5_000;
      return refused();
    });
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, totalTimeout: 5_000, retry: { delay: 0 }, onEvent });
    const error = await client.send('chat', { json: {} }).catch((e: unknown) => e);
    expect(isConnectionError(error)).toBe(true);
    expect(retries()).toEqual([]);
    expect(server.seen).toHaveLength(1);
  });

  it('keeps the signal of the parent ky instance on the request when the send has none', async () => {
    const controller = new AbortController();
    const aborted: boolean[] = [];
    const server = scripted((request) => (aborted.push(request.signal.aborted), Response.json({ ok: 1 })));
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, ky: ky.create({ signal: controller.signal }) });
    controller.abort();
    await client.send('chat', { json: {} }).catch(() => undefined);
    expect(aborted).toEqual([true]);
  });

  it('rejects a 400 whose body is cut at once, without a retry: retrying cannot change it', async () => {
    const { retries, onEvent } = listen();
    const server = scripted(() => new Response(cutBody('{"title"'), { status: 400 }));
    const error = await createClient({ baseUrl: BASE, fetch: server.fetch, retry: { delay: 0 }, onEvent })
      .send('chat', { json: {} })
      .catch((e: unknown) => e);
    expect(isResponseError(error)).toBe(true);
    expect(error).toMatchObject({ status: 400, attempts: 1 });
    expect(retries()).toEqual([]);
  });

  it('rejects an answer whose JSON does not parse with a ResponseError saying so and naming `parse`', async () => {
    const server = scripted(() => new Response('{"cut', { headers: { 'content-type': 'application/json' } }));
    const error = await createClient({ baseUrl: BASE, fetch: server.fetch })
      .send('chat', { json: {} })
      .catch((e: unknown) => e);
    expect(isResponseError(error)).toBe(true);
    expect(error).toMatchObject({ status: 200, retryable: false, attempts: 1 });
    expect((error as Error).message).toMatch(/body could not be parsed; set `parse`/);
  });
});

describe('bodies the client does not take as the answer', () => {
  it('cancels the body of a retried 503 and of a 202', async () => {
    const busy = watchedBody('busy');
    const running = watchedBody('running');
    const server = scripted((_request, n) =>
      n === 1
        ? new Response(busy.body, { status: 503 })
        : n === 2
          ? new Response(running.body, { status: 202, headers: { Location: '/status/1' } })
          : Response.json({ ok: 1 }),
    );
    await createClient({ baseUrl: BASE, fetch: server.fetch, retry: { delay: 0 } }).send('chat', { json: {} });
    expect([busy.cancelled(), running.cancelled()]).toEqual([true, true]);
  });

  it('cancels the body of a 202 whose Location is on another origin, and rejects with a ProtocolError', async () => {
    const running = watchedBody('running');
    const server = scripted(
      () => new Response(running.body, { status: 202, headers: { Location: 'http://127.0.0.2:9/status/1' } }),
    );
    const error = await createClient({ baseUrl: BASE, fetch: server.fetch })
      .send('chat', { json: {} })
      .catch((e: unknown) => e);
    expect(isProtocolError(error)).toBe(true);
    expect(running.cancelled()).toBe(true);
  });

  it('cancels the body of an answer for another request ID, and names that ID cut to 128 characters', async () => {
    const other = watchedBody('{"a":1}');
    const echoed = `${'a'.repeat(128)}${'b'.repeat(200)}`;
    const server = scripted(() => new Response(other.body, { headers: { 'x-request-id': echoed } }));
    const error = await createClient({ baseUrl: BASE, fetch: server.fetch })
      .send('chat', { json: {} })
      .catch((e: unknown) => e);
    expect(isProtocolError(error)).toBe(true);
    expect((error as Error).message).toContain(`request ID "${'a'.repeat(128)}", not this intent's`);
    expect(other.cancelled()).toBe(true);
  });
});
