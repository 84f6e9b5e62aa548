/**
 * The transport loop's edges after a 202, over a stub `fetch`: when a poll counts as a
 * long-poll the server held (and the next one leaves at once) and when polls are paced;
 * the pace announced when there is no status URL; a failed poll retried as a poll, not a
 * resend; a stream or form body sent again intact when polling ends in a resend; the
 * pending intent written once, not per attempt.
 */

import { type ClientOptions, createClient, memoryStorageAdapter, type SendEvent, storageAdapter } from 'answer-once';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scripted } from '../../support/scripted-fetch.js';
import { sleep } from '../../support/sleep.js';

const BASE = 'http://127.0.0.1:9/';
const STATUS = { Location: '/status/1' };
const accepted = (headers: Record<string, string> = {}) => new Response(null, { status: 202, headers });

/** A client whose polls are 1 ms apart, over `server`. */
const pacedClient = (server: ReturnType<typeof scripted>) =>
  createClient({ baseUrl: BASE, fetch: server.fetch, pollInterval: 1, minPollInterval: 1 });

/** A server that accepts the send without a status route (poll by resending), then answers; and a client over it. */
function resending() {
  const server = scripted((_request, n) => (n === 1 ? accepted() : Response.json({ ok: 1 })));
  return { server, client: pacedClient(server) };
}

/**
 * A server that accepts the send with a status route, answers the first poll with `poll()`
 * and the next one with the answer; and a client over it with `options`.
 */
function firstPoll(poll: () => Response | Promise<Response>, options: ClientOptions) {
  const server = scripted((_request, n) => (n === 1 ? accepted(STATUS) : n === 2 ? poll() : Response.json({ ok: 1 })));
  return { server, client: createClient({ baseUrl: BASE, fetch: server.fetch, ...options }) };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a poll the server held, and one it did not', () => {
  it.each([
    ['Preference-Applied: wait=0', { 'Preference-Applied': 'wait=0' }],
    ['Preference-Applied: wait=1 but answered at once', { 'Preference-Applied': 'wait=1' }],
  ])('paces the next poll by pollInterval after a poll 202 with %s', async (_, applied) => {
    const { server, client } = firstPoll(() => accepted(applied), {
      pollWait: 1,
      pollInterval: 400,
      minPollInterval: 400,
    });
    const result = await client.send('chat', { json: {} });
    expect(result).toMatchObject({ attempts: 1, polls: 2 });
    expect(server.seen[2]!.at - server.seen[1]!.at).toBeGreaterThanOrEqual(390);
  });

  it('polls again at once after a poll held as long as the server applied, though pollWait asked for more', async () => {
    // Were it not taken as a long-poll, the next poll would wait 30 s, past the 4 s totalTimeout.
    const { client } = firstPoll(() => sleep(1_000).then(() => accepted({ 'Preference-Applied': 'wait=1' })), {
      pollWait: 5,
      pollInterval: 60_000,
      totalTimeout: 4_000,
    });
    const result = await client.send('chat', { json: {} });
    expect(result).toMatchObject({ data: { ok: 1 }, attempts: 1, polls: 2 });
  });

  it('counts a poll held exactly the applied wait less 100 ms of timer slack as held', async () => {
    // The wall clock moves only when the server holds a poll: 900 ms, not one more.
    let clock = 1_000_000;
    vi.spyOn(Date, 'now').mockImplementation(() => clock);
    const { client } = firstPoll(() => ((clock += 900), accepted({ 'Preference-Applied': 'wait=1' })), {
      pollWait: 1,
      pollInterval: 60_000,
      totalTimeout: 3_000,
    });
    const result = await client.send('chat', { json: {} });
    expect(result).toMatchObject({ data: { ok: 1 }, polls: 2 });
  });
});

describe('polling without a status URL (the original request is sent again)', () => {
  it('announces the pollInterval pace in the accepted event: no long-poll without a status route', async () => {
    const events: SendEvent[] = [];
    const server = scripted((_request, n) => (n === 1 ? accepted() : Response.json({ ok: 1 })));
    const client = createClient({
      baseUrl: BASE,
      fetch: server.fetch,
      pollInterval: 300,
      minPollInterval: 300,
      onEvent: (event) => events.push(event),
    });
    const result = await client.send('chat', { json: { q: 1 } });
    expect(events.find((event) => event.type === 'accepted')).toEqual({
      type: 'accepted',
      requestId: result.requestId,
      statusUrl: undefined,
      delay: 300,
    });
    expect(server.seen.map((s) => [s.method, s.body])).toEqual([
      ['POST', '{"q":1}'],
      ['POST', '{"q":1}'],
    ]);
  });

  it('sends a stream body again, byte for byte, when the 202 says to poll by resending', async () => {
    const { server, client } = resending();
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => (controller.enqueue(new TextEncoder().encode('streamed question')), controller.close()),
    });
    const result = await client.send('chat', { method: 'POST', body });
    expect(result).toMatchObject({ data: { ok: 1 }, attempts: 1, polls: 1 });
    expect(server.seen.map((s) => [s.method, s.body])).toEqual([
      ['POST', 'streamed question'],
      ['POST', 'streamed question'],
    ]);
  });

  it('sends a JSON body again with its JSON content type when the 202 says to poll by resending', async () => {
    const { server, client } = resending();
    await client.send('chat', { json: { q: 1 } });
    expect(server.seen.map((s) => [s.body, s.contentType])).toEqual([
      ['{"q":1}', 'application/json'],
      ['{"q":1}', 'application/json'],
    ]);
  });

  it('sends a form again with a content type naming its new multipart boundary', async () => {
    const fields: string[] = [];
    const server = scripted(async (request, n) => {
      fields.push(String((await request.formData()).get('q')));
      return n === 1 ? accepted() : Response.json({ ok: 1 });
    });
    const client = pacedClient(server);
    const form = new FormData();
    form.set('q', 'hi');
    const result = await client.send('chat', { body: form });
    expect(result).toMatchObject({ data: { ok: 1 }, polls: 1 });
    expect(fields).toEqual(['hi', 'hi']);
  });
});

describe('a poll that fails', () => {
  it('retries a poll answered 503 as a poll (GET to the status URL), not as a resend of the intent', async () => {
    const events: SendEvent[] = [];
    const { server, client } = firstPoll(() => new Response('busy', { status: 503 }), {
      retry: { delay: 0 },
      onEvent: (event) => events.push(event),
    });
    const result = await client.send('chat', { json: {} });
    expect(server.seen.map((s) => [s.method, new URL(s.url).pathname])).toEqual([
      ['POST', '/chat'],
      ['GET', '/status/1'],
      ['GET', '/status/1'],
    ]);
    expect(result).toMatchObject({ attempts: 1, polls: 2 });
    expect(events.filter((event) => event.type === 'retry')).toMatchObject([{ reason: 'status', status: 503 }]);
  });
});

describe('the pending intent in storage', () => {
  it('is written once, before the first attempt, not again for each retry', async () => {
    const memory = memoryStorageAdapter();
    const saved: number[] = [];
    const storage = storageAdapter({
      save: (intent) => (saved.push(intent.createdAt), memory.save(intent)),
      remove: (id) => memory.remove(id),
      list: () => memory.list(),
    });
    const server = scripted((_request, n) => (n < 3 ? new Response('busy', { status: 503 }) : Response.json({ ok: 1 })));
    const client = createClient({ baseUrl: BASE, fetch: server.fetch, storage, retry: { delay: 0 } });
    const result = await client.send('chat', { json: { q: 1 } });
    expect(result.attempts).toBe(3);
    expect(saved).toHaveLength(1);
  });
});
