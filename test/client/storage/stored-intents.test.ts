/**
 * What the client puts on the wire and in `storage` for an intent, and how a stored
 * intent goes again (`resend`, `stream(stored)`, `pending`): the headers it adds (the ID,
 * a JSON content type) and stores (the caller's, plus the content type the request
 * carried, once), the parent ky instance's `stringifyJson`, the signal and listener a
 * resend takes, and when a stopped record outlives its settle. The server is a stub
 * `fetch` on 127.0.0.1 that records each request.
 */

import {
  createClient,
  isAbortError,
  memoryStorageAdapter,
  type SendEvent,
  type StorageAdapter,
  type StoredIntent,
  streaming,
  UnreplayableBodyError,
} from 'answer-once';
import ky from 'ky';
import { describe, expect, it } from 'vitest';
import { untilAborted } from '../../support/in-flight.js';
import { sleep } from '../../support/sleep.js';
import { startStreamFake } from '../../support/stream-fake.js';

const BASE = 'http://127.0.0.1:9/';
const REPLAYED = { 'x-idempotent-replayed': 'true' };

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  /** What storage held while this request was on the wire. */
  readonly stored: readonly StoredIntent[];
}

/** A server answering `answer` (default: a JSON answer), recording each request and what storage held then. */
function stub(
  storage?: StorageAdapter,
  answer: (request: Request) => Response | Promise<Response> = () => Response.json({ a: 1 }),
) {
  const seen: Seen[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.push({
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: await request.clone().text(),
      stored: storage ? [...(await storage.list())] : [],
    });
    return answer(request);
  };
  return { seen, fetch: fetch as typeof globalThis.fetch };
}

const record = (requestId: string, input: string, extra: Partial<StoredIntent> = {}): StoredIntent => ({
  v: 1,
  requestId,
  input,
  url: `${BASE}${input}`,
  method: 'POST',
  headers: [['content-type', 'application/json']],
  body: '{"q":"hi"}',
  createdAt: 1,
  ...extra,
});

/** A client with a memory storage, over a stub that records each request and what that storage held then. */
function storingClient() {
  const storage = memoryStorageAdapter();
  const server = stub(storage);
  return { server, client: createClient({ streaming, baseUrl: BASE, fetch: server.fetch, storage }) };
}

const ids = async (storage: StorageAdapter) => (await storage.list()).map((intent) => intent.requestId);

describe('what a send puts on the wire and in storage', () => {
  it('adds the ID header and a JSON content type to a json send without headers, and stores that content type', async () => {
    const { server, client } = storingClient();
    const result = await client.send('chat', { json: { q: 1 } });
    const [sent] = server.seen;
    expect(sent!.headers['x-request-id']).toBe(result.requestId);
    expect(sent!.headers['content-type']).toBe('application/json');
    expect(sent!.body).toBe('{"q":1}');
    expect(sent!.stored).toEqual([
      {
        v: 1,
        requestId: result.requestId,
        input: 'chat',
        url: `${BASE}chat`,
        method: 'POST',
        headers: [['content-type', 'application/json']],
        body: '{"q":1}',
        createdAt: expect.any(Number),
      },
    ]);
  });

  it('adds the ID header to a text body without headers, and stores the content type fetch gave it', async () => {
    const { server, client } = storingClient();
    const result = await client.send('notes', { body: 'plain' });
    expect(server.seen[0]!.headers['x-request-id']).toBe(result.requestId);
    expect(server.seen[0]!.stored[0]).toMatchObject({
      headers: [['content-type', 'text/plain;charset=UTF-8']],
      body: 'plain',
    });
  });

  it("stores the caller's own content type once, and a form body as its encoded text", async () => {
    const { server, client } = storingClient();
    await client.send('chat', { body: '{"a":1}', headers: { 'content-type': 'application/vnd.api+json', 'x-app': '1' } });
    expect(server.seen[0]!.stored[0]!.headers).toEqual([
      ['content-type', 'application/vnd.api+json'],
      ['x-app', '1'],
    ]);
    await client.send('form', { body: new URLSearchParams({ q: 'a b', n: '2' }) });
    expect(server.seen[1]!.stored[0]).toMatchObject({
      headers: [['content-type', 'application/x-www-form-urlencoded;charset=UTF-8']],
      body: 'q=a+b&n=2',
    });
  });

  it('stores an intent without a body with no body and no content type', async () => {
    const { server, client } = storingClient();
    await client.send('ping', { method: 'PUT' });
    const [stored] = server.seen[0]!.stored;
    expect(stored).toMatchObject({ method: 'PUT', headers: [] });
    expect('body' in stored!).toBe(false);
  });

  it("serialises a json body with the parent ky instance's stringifyJson", async () => {
    const server = stub();
    const parent = ky.create({ stringifyJson: (value) => `${JSON.stringify(value)}\n` });
    await createClient({ streaming, baseUrl: BASE, fetch: server.fetch, ky: parent }).send('chat', { json: { q: 1 } });
    expect(server.seen[0]!.body).toBe('{"q":1}\n');
  });

  it('names the intent in the error for a body it cannot store', async () => {
    const server = stub();
    const client = createClient({ streaming, baseUrl: BASE, fetch: server.fetch, storage: memoryStorageAdapter() });
    const body = new ReadableStream({ start: (controller) => controller.close() });
    const error = await client
      .send('upload', { body, requestId: '01JSTOREDINTENTS000000000A' })
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(UnreplayableBodyError);
    expect(error).toMatchObject({ requestId: '01JSTOREDINTENTS000000000A', attempts: 0, polls: 0 });
    expect(server.seen).toEqual([]);
  });

  it("keeps the first request's record while client.fetch resumes a cut stream (a reload resends it whole)", async () => {
    const fake = await startStreamFake({ tokens: ['a ', 'b ', 'c ', 'd ', 'e ', 'f '], cuts: [2], intervalMs: 5 });
    try {
      const saves: StoredIntent[] = [];
      const inner = memoryStorageAdapter();
      const storage: StorageAdapter = { ...inner, save: (intent) => (saves.push(intent), inner.save(intent)) };
      const response = await createClient({ streaming, storage }).fetch(`${fake.url}/chat`, {
        method: 'POST',
        body: '{"q":"hi"}',
        headers: { 'content-type': 'application/json' },
      });
      await response.text();
      expect(fake.stats.requests).toBe(2); // cut once, resumed once
      expect(saves).toHaveLength(1);
      expect(Object.fromEntries(saves[0]!.headers)).not.toHaveProperty('last-event-id');
    } finally {
      await fake.close();
    }
  });
});

describe('a stored intent sent again', () => {
  it('pending(input) finds the oldest intent sent to that input, and match picks among them', async () => {
    const storage = memoryStorageAdapter();
    const [a1, b, a2] = [
      record('01JSTOREDINTENTS000000000B', 'a'),
      record('01JSTOREDINTENTS000000000C', 'b'),
      record('01JSTOREDINTENTS000000000D', 'a'),
    ];
    for (const intent of [a1!, b!, a2!]) await storage.save(intent);
    const client = createClient({ streaming, baseUrl: BASE, fetch: stub().fetch, storage });
    expect(await client.pending('b')).toEqual(b);
    expect(await client.pending('a')).toEqual(a1);
    expect(await client.pending('a', (intent) => intent.requestId === a2!.requestId)).toEqual(a2);
    expect(await client.pending('c')).toBeUndefined();
    expect(await createClient({ streaming, baseUrl: BASE, fetch: stub().fetch }).pending('a')).toBeUndefined();
  });

  for (const way of ['resend', 'stream'] as const) {
    const again = (
      client: ReturnType<typeof createClient>,
      stored: StoredIntent,
      options: { signal?: AbortSignal; onEvent?: (event: SendEvent) => void },
    ) =>
      way === 'resend'
        ? client.resend(stored, options)
        : client.stream(stored, options).then(async (answer) => {
            for await (const _ of answer) {
              // read to its end
            }
          });

    it(`${way}: tells its listener, with the stored ID, and is called off by its signal`, async () => {
      const stored = record('01JSTOREDINTENTS000000000E', 'chat');
      const events: SendEvent[] = [];
      const storage = memoryStorageAdapter();
      await again(createClient({ streaming, baseUrl: BASE, fetch: stub().fetch, storage }), stored, {
        onEvent: (event) => events.push(event),
      });
      expect(events[0]).toMatchObject({ type: 'attempt', requestId: stored.requestId, attempt: 1 });

      const controller = new AbortController();
      const hanging = stub(undefined, untilAborted);
      const pending = again(createClient({ streaming, baseUrl: BASE, fetch: hanging.fetch, retry: 0, storage }), stored, {
        signal: controller.signal,
      });
      await sleep(20);
      controller.abort();
      expect(isAbortError(await pending.catch((error: unknown) => error))).toBe(true);
    });

    it(`${way}: a stopped record stays past a fresh answer and goes with the first replayed one; any other record goes`, async () => {
      const storage = memoryStorageAdapter();
      const stopped = record('01JSTOREDINTENTS000000000F', 'chat', { stopped: true });
      const plain = record('01JSTOREDINTENTS000000000G', 'other');
      await storage.save(stopped);
      await storage.save(plain);
      const fresh = createClient({ streaming, baseUrl: BASE, fetch: stub().fetch, storage });
      await again(fresh, stopped, {});
      await again(fresh, plain, {});
      expect(await ids(storage)).toEqual([stopped.requestId]);

      const replayed = createClient({
        streaming,
        baseUrl: BASE,
        fetch: stub(undefined, () => Response.json({ a: 1 }, { headers: REPLAYED })).fetch,
        storage,
      });
      await again(replayed, stopped, {});
      expect(await ids(storage)).toEqual([]);
    });
  }

  it('resend: a stopped record stays past a failure and goes with a replayed failure', async () => {
    const storage = memoryStorageAdapter();
    const stopped = record('01JSTOREDINTENTS000000000H', 'chat', { stopped: true });
    await storage.save(stopped);
    const problem = (headers: Record<string, string>) => () =>
      Response.json(
        { type: 'about:blank', title: 'failed', status: 422, code: 'intent-failed' },
        { status: 422, headers: { 'content-type': 'application/problem+json', ...headers } },
      );
    await expect(
      createClient({ streaming, baseUrl: BASE, fetch: stub(undefined, problem({})).fetch, storage, retry: 0 }).resend(
        stopped,
      ),
    ).rejects.toThrow();
    expect(await ids(storage)).toEqual([stopped.requestId]);
    await expect(
      createClient({ streaming, baseUrl: BASE, fetch: stub(undefined, problem(REPLAYED)).fetch, storage, retry: 0 }).resend(
        stopped,
      ),
    ).rejects.toThrow();
    expect(await ids(storage)).toEqual([]);
  });
});
