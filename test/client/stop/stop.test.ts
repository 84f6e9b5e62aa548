/**
 * `client.stop()` and `SendController.stop()`: a stop reaches the generation on the
 * server (PROTOCOL.md § 14.8), the streamed answer ends with the partial text, and what
 * the stop leaves in storage lets a reload show that partial answer without calling the
 * model again — until a replay of it was read or a new intent supersedes it. The
 * reference handler runs in-process (the client's `fetch` is the handler).
 */

import {
  createClient,
  isResponseError,
  memoryStorageAdapter,
  SendController,
  type StorageAdapter,
  type StreamPart,
  stopping,
  streaming,
  webStorageAdapter,
} from 'answer-once';
import { createIdempotencyHandler } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { memoryArea } from '../../support/memory-area.js';
import { sleep } from '../../support/sleep.js';
import { tokenResponse } from '../../support/token-stream.js';

const TOKENS = Array.from({ length: 40 }, (_, i) => `t${i} `);
const FULL = TOKENS.join('');
const BASE = 'http://127.0.0.1:9/';

function chatServer(statusPath = '/api/status') {
  const stats = { modelCalls: 0, stopsSeen: 0, deletes: [] as string[] };
  const handle = createIdempotencyHandler({
    scope: () => ({ user: 'u' }),
    statusPath,
    flushMs: 5,
    handler: async (request, { signal }) => {
      stats.modelCalls += 1;
      signal.addEventListener('abort', () => (stats.stopsSeen += 1));
      await request.text();
      return tokenResponse(TOKENS, { delayMs: 15, signal });
    },
  });
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.method === 'DELETE') stats.deletes.push(new URL(request.url).pathname);
    return handle(request);
  };
  return { stats, fetch: fetch as typeof globalThis.fetch };
}

type Server = ReturnType<typeof chatServer>;

const STORAGES: [string, () => StorageAdapter][] = [
  ['memoryStorageAdapter', () => memoryStorageAdapter()],
  ['webStorageAdapter', () => webStorageAdapter(memoryArea())],
];

/** A page: a client over the server and `storage` (a reload is a new client over the same storage). */
const page = (server: Server, storage: StorageAdapter, extra: Parameters<typeof createClient>[0] = {}) =>
  createClient({ streaming, stopping, baseUrl: BASE, fetch: server.fetch, storage, ...extra });

const textOf = (parts: StreamPart[]) => parts.map((part) => (part.type === 'event' ? part.data : '')).join('');

/** Reads `answer`, stopping it with `stop` once `after` events arrived. */
async function readAndStop(answer: AsyncIterable<StreamPart>, after: number, stop: () => Promise<unknown>) {
  const parts: StreamPart[] = [];
  let stopping: Promise<unknown> | undefined;
  for await (const part of answer) {
    parts.push(part);
    if (parts.length === after) stopping = stop();
  }
  await stopping;
  return parts;
}

describe('client.stop', () => {
  it('stops the generation on the server: the stream ends with the partial text and a stopped part, one model call', async () => {
    const server = chatServer();
    const client = page(server, memoryStorageAdapter());
    const answer = await client.stream('chat', { json: { q: 'hi' } });
    let outcome: unknown;
    const parts = await readAndStop(answer, 5, async () => {
      outcome = (await client.stop(answer.requestId)).outcome;
    });

    expect(outcome).toBe('stopping');
    expect(server.stats.deletes).toEqual([`/api/status/${answer.requestId}`]);
    expect(server.stats.stopsSeen).toBe(1);
    expect(parts.at(-1)).toEqual({ type: 'stopped' });
    const text = textOf(parts);
    expect(text.length).toBeGreaterThan(0);
    expect(FULL.startsWith(text)).toBe(true);
    expect(text).not.toBe(FULL);
    expect(server.stats.modelCalls).toBe(1);
  });

  it.each(STORAGES)(
    'keeps a stopped intent in storage (%s): a reload shows the same partial answer, replayed and stopped, and the model is not called again',
    async (_name, makeStorage) => {
      const server = chatServer();
      const storage = makeStorage();
      const first = page(server, storage);
      const answer = await first.stream('chat', { json: { q: 'hi' } });
      const seen = textOf(await readAndStop(answer, 5, () => first.stop(answer.requestId)));

      const reloaded = page(server, storage);
      const stored = await reloaded.pending('chat');
      expect(stored).toMatchObject({ requestId: answer.requestId, stopped: true });
      const again = await reloaded.stream(stored!);
      const parts: StreamPart[] = [];
      for await (const part of again) parts.push(part);

      expect(again).toMatchObject({ requestId: answer.requestId, replayed: true, stopped: true });
      expect(textOf(parts)).toBe(seen);
      expect(parts.at(-1)).toEqual({ type: 'stopped' });
      expect(server.stats.modelCalls).toBe(1);
      // Read through after the stop: forgotten as any answer is.
      expect(await storage.list()).toEqual([]);
    },
  );

  it('keeps the record when the stop comes after the stream was aborted locally (useChat aborts first)', async () => {
    const server = chatServer();
    const storage = memoryStorageAdapter();
    const client = page(server, storage);
    const local = new AbortController();
    const answer = await client.stream('chat', { json: { q: 'hi' }, signal: local.signal });
    const parts: StreamPart[] = [];
    await expect(
      (async () => {
        for await (const part of answer) {
          parts.push(part);
          if (parts.length === 3) local.abort();
        }
      })(),
    ).rejects.toThrow();
    await client.stop(answer.requestId);

    const stored = await page(server, storage).pending('chat');
    expect(stored).toMatchObject({ requestId: answer.requestId, stopped: true });
    expect(server.stats.modelCalls).toBe(1);
  });

  it('lets a new intent to the same input supersede a stopped one, so a reload resumes the new one', async () => {
    const server = chatServer();
    const storage = memoryStorageAdapter();
    const client = page(server, storage);
    const stoppedAnswer = await client.stream('chat', { json: { q: 'one' } });
    await readAndStop(stoppedAnswer, 3, () => client.stop(stoppedAnswer.requestId));
    expect((await storage.list()).map((intent) => intent.requestId)).toEqual([stoppedAnswer.requestId]);

    const next = await client.stream('chat', { json: { q: 'two' } });
    expect((await storage.list()).map((intent) => intent.requestId)).toEqual([next.requestId]);
    for await (const _ of next) {
      // read to its end
    }
    expect(await storage.list()).toEqual([]);
  });

  it("sends the stop to the app's statusUrl when one is configured", async () => {
    const server = chatServer('/v1/intents');
    const client = page(server, memoryStorageAdapter(), {
      statusUrl: (id) => `${BASE}v1/intents/${id}`,
    });
    const answer = await client.stream('chat', { json: { q: 'hi' } });
    const parts = await readAndStop(answer, 3, () => client.stop(answer.requestId));
    expect(server.stats.deletes).toEqual([`/v1/intents/${answer.requestId}`]);
    expect(parts.at(-1)).toEqual({ type: 'stopped' });
  });

  it('says what the server did: settled for an answered intent, unknown for an ID it never saw', async () => {
    const server = chatServer();
    const client = page(server, memoryStorageAdapter());
    const answer = await client.stream('chat', { json: { q: 'hi' } });
    for await (const _ of answer) {
      // read to its end
    }
    expect((await client.stop(answer.requestId)).outcome).toBe('settled');
    expect((await client.stop('01JUNKNOWNINTENT000000000')).outcome).toBe('unknown');
    await expect(client.stop('no')).rejects.toThrow(TypeError);
  });
});

describe('SendController.stop', () => {
  it('ends a streamed send answered with its partial text and stopped, and a reload with resume shows it without a model call', async () => {
    const server = chatServer();
    const storage = memoryStorageAdapter();
    const controller = new SendController<string>(page(server, storage), 'chat', { stream: true, stopGuardMs: 0 });
    const sent = controller.send({ json: { content: 'hi' } });
    await expect.poll(() => controller.getSnapshot().text?.length ?? 0).toBeGreaterThan(8);
    const shown = controller.getSnapshot().text;
    await controller.stop();
    const state = await sent;

    expect(state).toMatchObject({ status: 'answered', stopped: true, replayed: false, data: shown });
    const partial = state.status === 'answered' ? state.data : '';
    expect(FULL.startsWith(partial) && partial !== FULL && partial.length > 0).toBe(true);

    const reloaded = new SendController<string>(page(server, storage), 'chat', { stream: true });
    const resumed = await reloaded.resume();
    expect(resumed).toMatchObject({ status: 'answered', stopped: true, replayed: true, data: partial });
    expect(resumed.requestId).toBe(state.requestId);
    expect(server.stats.modelCalls).toBe(1);
  });

  it('starts a new intent on the next send after a stop', async () => {
    const server = chatServer();
    const controller = new SendController<string>(page(server, memoryStorageAdapter()), 'chat', {
      stream: true,
      stopGuardMs: 0,
    });
    const first = controller.send({ json: { content: 'hi' } });
    await expect.poll(() => controller.getSnapshot().status).toBe('streaming');
    await controller.stop();
    const stopped = await first;
    const next = await controller.send({ json: { content: 'again' } });
    expect(next.requestId).not.toBe(stopped.requestId);
    expect(next).toMatchObject({ status: 'answered', stopped: false, data: FULL });
    expect(server.stats.modelCalls).toBe(2);
    expect(await controller.stop()).toBeUndefined();
  });

  it('fails a non-streamed send stopped before its work answered with the intent-stopped problem; the work was aborted once', async () => {
    let aborted = 0;
    const handle = createIdempotencyHandler({
      scope: () => ({ user: 'u' }),
      handler: async (_request, { signal }) => {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 5_000);
          signal.addEventListener('abort', () => {
            aborted += 1;
            clearTimeout(timer);
            reject(signal.reason);
          });
        });
        return Response.json({ answer: 'too late' });
      },
    });
    const fetch = ((input: RequestInfo | URL, init?: RequestInit) =>
      handle(new Request(input, init))) as typeof globalThis.fetch;
    const controller = new SendController(createClient({ streaming, stopping, baseUrl: BASE, fetch }), 'chat', {
      stopGuardMs: 0,
    });
    const sent = controller.send({ json: { content: 'hi' } });
    await expect.poll(() => controller.getSnapshot().status).toBe('sending');
    await sleep(50);
    expect((await controller.stop())?.outcome).toBe('stopping');
    const state = await sent;
    expect(state.status).toBe('failed');
    const error = state.status === 'failed' ? state.error : undefined;
    expect(isResponseError(error) && error.status === 409 && error.problem?.code === 'intent-stopped').toBe(true);
    expect(aborted).toBe(1);
  });
});
