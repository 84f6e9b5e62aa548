/**
 * What `client.stop()` leaves in storage and how it reads the route's answer: the stopped
 * intent's record (found by ID in storage, or among the records saved lately once its
 * intent settled and left) is kept marked `stopped: true`, and only that one; the
 * `DELETE` goes to the record's origin even when storage cannot be read; the stop's own
 * signal and the client's retry limit reach the request. The route is a stub `fetch`.
 */

import {
  createClient,
  isAbortError,
  memoryStorageAdapter,
  type StorageAdapter,
  type StoredIntent,
  stopping,
  storageAdapter,
} from 'answer-once';
import { describe, expect, it } from 'vitest';
import { whenAborted } from '../../support/in-flight.js';

const BASE = 'http://127.0.0.1:9/';
const STOPPING = () => new Response(null, { status: 202 });

/** A stored intent sent to `http://127.0.0.1:7/<input>` (another origin than the client's base). */
const record = (requestId: string, input: string, extra: Partial<StoredIntent> = {}): StoredIntent => ({
  v: 1,
  requestId,
  input,
  url: `http://127.0.0.1:7/${input}`,
  method: 'POST',
  headers: [['content-type', 'application/json']],
  body: '{"q":"hi"}',
  createdAt: 1,
  ...extra,
});

/** A route answering `answer` for the DELETE and an answer for anything else; records each request. */
function route(answer: (request: Request) => Response | Promise<Response> = STOPPING) {
  const seen: { method: string; url: string }[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    seen.push({ method: request.method, url: request.url });
    if (request.method !== 'DELETE') return Response.json({ answer: 'done' });
    return answer(request);
  };
  return { seen, deletes: () => seen.filter((r) => r.method === 'DELETE'), fetch: fetch as typeof globalThis.fetch };
}

/** Storage that counts its saves. */
function counted(storage: StorageAdapter = memoryStorageAdapter()) {
  const saves: StoredIntent[] = [];
  const wrapped = storageAdapter({
    save: (intent) => (saves.push(intent), storage.save(intent)),
    list: () => storage.list(),
    remove: (id) => storage.remove(id),
  });
  return { storage: wrapped, saves };
}

const clientOver = (stub: ReturnType<typeof route>, extra: Parameters<typeof createClient>[0] = {}) =>
  createClient({ stopping, baseUrl: BASE, fetch: stub.fetch, retry: { limit: 2, backoffLimit: 5 }, ...extra });

describe('what client.stop marks in storage', () => {
  it("marks the stopped ID's stored record, and only that one, and stops it on that record's origin", async () => {
    const storage = memoryStorageAdapter();
    const other = record('01JSTOPMARKS0000000000000A', 'chat');
    const target = record('01JSTOPMARKS0000000000000B', 'chat/2');
    await storage.save(other);
    await storage.save(target);
    const stub = route();

    await clientOver(stub, { storage }).stop(target.requestId);

    expect(stub.deletes().map((r) => r.url)).toEqual([`http://127.0.0.1:7/api/status/${target.requestId}`]);
    const byId = Object.fromEntries((await storage.list()).map((intent) => [intent.requestId, intent]));
    expect(byId[target.requestId]).toEqual({ ...target, stopped: true });
    expect(byId[other.requestId]).toEqual(other);
  });

  it('puts the record of an intent that already settled back, stopped, so a reload shows its partial answer', async () => {
    const { storage, saves } = counted();
    const stub = route();
    const client = clientOver(stub, { storage });
    const result = await client.send('chat', { json: { q: 'hi' } });
    expect(await storage.list()).toEqual([]); // settled: forgotten
    const before = saves.length;

    await client.stop(result.requestId);

    const [stored] = await storage.list();
    expect(stored).toMatchObject({ requestId: result.requestId, input: 'chat', url: `${BASE}chat`, stopped: true });
    expect(saves.length - before).toBe(1);
    expect(await createClient({ baseUrl: BASE, fetch: stub.fetch, storage }).pending('chat')).toEqual(stored);
  });

  it('does not save a record that is already marked stopped', async () => {
    const { storage, saves } = counted();
    const stopped = record('01JSTOPMARKS0000000000000C', 'chat', { stopped: true });
    await storage.save(stopped);
    saves.length = 0;

    await clientOver(route(), { storage }).stop(stopped.requestId);

    expect(saves).toEqual([]);
    expect(await storage.list()).toEqual([stopped]);
  });

  it('still stops a given stored intent on its origin when storage cannot be read', async () => {
    const broken = storageAdapter({
      save: () => Promise.reject(new Error('quota')),
      list: () => Promise.reject(new Error('storage is gone')),
      remove: () => Promise.resolve(),
    });
    const target = record('01JSTOPMARKS0000000000000D', 'v2/chat');
    const stub = route();

    expect((await clientOver(stub, { storage: broken }).stop(target)).outcome).toBe('stopping');
    expect(stub.deletes().map((r) => r.url)).toEqual([`http://127.0.0.1:7/api/status/${target.requestId}`]);
  });
});

describe('the stop request', () => {
  it('is called off by its signal while in flight: AbortError, not a connection error', async () => {
    const controller = new AbortController();
    const stub = route(
      (request) =>
        new Promise<Response>((_, reject) => {
          whenAborted(request, reject);
          controller.abort(new Error('user left'));
        }),
    );
    const stopping = clientOver(stub).stop('01JSTOPMARKS0000000000000E', { signal: controller.signal });
    const error = await stopping.catch((reason: unknown) => reason);
    expect(isAbortError(error)).toBe(true);
    expect(stub.deletes()).toHaveLength(1);
  });

  it("is sent again only as often as the client's retry limit says", async () => {
    const unavailable = () => new Response(null, { status: 503, headers: { 'Retry-After': '0' } });
    for (const limit of [0, 1, 3]) {
      const stub = route(unavailable);
      const client = clientOver(stub, { retry: { limit, backoffLimit: 5 } });
      await expect(client.stop('01JSTOPMARKS0000000000000F')).rejects.toMatchObject({ status: 503 });
      expect(stub.deletes(), `retry limit ${limit}`).toHaveLength(limit + 1);
    }
  });

  it('reads a body that is not JSON as its text, not parsed', async () => {
    const stub = route(() => new Response('42', { status: 500, headers: { 'content-type': 'text/plain' } }));
    await expect(clientOver(stub, { retry: 0 }).stop('01JSTOPMARKS0000000000000G')).rejects.toMatchObject({
      data: '42',
      problem: undefined,
    });
  });

  it('reads an empty or unreadable body as no data, whatever its content type', async () => {
    const id = '01JSTOPMARKS0000000000000J';
    const broken = () => new ReadableStream({ start: (controller) => controller.error(new Error('connection reset')) });
    for (const type of ['text/plain', 'application/problem+json']) {
      for (const body of [() => '', broken]) {
        const stub = route(() => new Response(body(), { status: 500, headers: { 'content-type': type } }));
        const error = await clientOver(stub, { retry: 0 })
          .stop(id)
          .catch((reason: { status?: number; data?: unknown }) => reason);
        expect(error, type).toMatchObject({ status: 500, problem: undefined });
        expect((error as { data?: unknown }).data, type).toBeUndefined();
      }
    }
  });

  it('takes a JSON body as the problem only when it has a numeric status', async () => {
    const json = (body: string) => () =>
      new Response(body, { status: 500, headers: { 'content-type': 'application/problem+json' } });
    const id = '01JSTOPMARKS0000000000000H';
    const stop = (body: string) =>
      clientOver(route(json(body)), { retry: 0 })
        .stop(id)
        .catch((error: unknown) => error);
    expect(await stop('{"status":500,"code":"store-unavailable"}')).toMatchObject({
      problem: { status: 500, code: 'store-unavailable' },
    });
    expect(await stop('{"code":"store-unavailable"}')).toMatchObject({ problem: undefined });
    expect(await stop('null')).toMatchObject({ status: 500, data: null, problem: undefined });
    expect(await stop('"busy"')).toMatchObject({ status: 500, data: 'busy', problem: undefined });
  });

  it('names what a bad target must be', async () => {
    const client = clientOver(route());
    await expect(client.stop('short')).rejects.toThrow(/requestId.*8–128 characters.*StoredIntent/);
    await expect(client.stop(123_456_789 as never)).rejects.toThrow(/requestId.*got 123456789/);
  });
});
