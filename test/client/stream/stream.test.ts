/**
 * The client's own streaming API: `client.stream()` as parts (events, restart, stopped)
 * with requestId / replayed / attached, and `SendController({ stream })` with its
 * `streaming` state — against the reference handler behind a socket-cutting front, and
 * the § 14 fake for a producer that dies.
 */

import {
  createClient,
  memoryStorageAdapter,
  SendController,
  type SendStatus,
  type StreamPart,
  streaming,
} from 'answer-once';
import { createIdempotencyHandler } from 'answer-once/server';
import { type ServedHandler, serve } from 'answer-once/server/node';
import { afterEach, describe, expect, it } from 'vitest';
import { type CuttingFront, startCuttingFront } from '../../support/cutting-front.js';
import { sleep } from '../../support/sleep.js';
import { startStreamFake } from '../../support/stream-fake.js';
import { tokenResponse } from '../../support/token-stream.js';

const TOKENS = Array.from({ length: 20 }, (_, i) => `t${i} `);
const FULL = TOKENS.join('');

let calls = 0;
let origin: ServedHandler | undefined;
let front: CuttingFront | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await front?.close();
  await origin?.close();
  for (const close of closers.splice(0)) await close();
  front = origin = undefined;
  calls = 0;
});

async function rig(cuts: (number | undefined)[] = [], delayMs = 5) {
  origin = await serve(
    createIdempotencyHandler({
      scope: () => ({ user: 'u' }),
      handler: async (request, { signal }) => {
        calls += 1;
        await request.text();
        return tokenResponse(TOKENS, { delayMs, signal });
      },
    }),
  );
  front = await startCuttingFront(origin.url, cuts);
  return front;
}

async function collect(parts: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const out: StreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

const dataOf = (parts: StreamPart[]) => parts.map((part) => (part.type === 'event' ? part.data : '')).join('');

describe('client.stream', () => {
  it('yields the answer as events across a cut, every one once, with its requestId and one model call', async () => {
    const server = await rig([6]);
    const client = createClient({ streaming, baseUrl: `${server.url}/` });
    const answer = await client.stream('api/chat', { json: { q: 'hi' } });
    expect(answer).toMatchObject({ replayed: false, attached: false, stopped: false });
    expect(answer.requestId).toMatch(/^[0-9A-Z]{26}$/);
    expect(answer.generation).toBeGreaterThan(0);
    const parts = await collect(answer);
    expect(dataOf(parts)).toBe(FULL);
    expect(parts.every((part) => part.type === 'event' && part.event === undefined)).toBe(true);
    expect(server.cuts()).toBe(1);
    expect(calls).toBe(1);
  });

  it('says attached for a second stream of a live intent and replayed once it ended', async () => {
    const server = await rig();
    const client = createClient({ streaming, baseUrl: `${server.url}/` });
    const first = await client.stream('api/chat', { json: { q: 'hi' }, requestId: 'req-stream-000001' });
    const live = await client.stream('api/chat', { json: { q: 'hi' }, requestId: 'req-stream-000001' });
    expect(live.attached).toBe(true);
    expect(dataOf(await collect(first))).toBe(FULL);
    expect(dataOf(await collect(live))).toBe(FULL);
    const later = await client.stream('api/chat', { json: { q: 'hi' }, requestId: 'req-stream-000001' });
    expect(later.replayed).toBe(true);
    expect(dataOf(await collect(later))).toBe(FULL);
    expect(calls).toBe(1);
  });

  it('yields a restart part when the producer died after part of the answer arrived, then the new answer whole', async () => {
    const fake = await startStreamFake({ tokens: TOKENS, dieAfter: 5 });
    closers.push(fake.close);
    const client = createClient({ streaming });
    const parts = await collect(await client.stream(`${fake.url}/chat`, { json: { q: 'hi' } }));
    const restart = parts.findIndex((part) => part.type === 'restart');
    expect(restart).toBe(5);
    expect(dataOf(parts.slice(0, restart))).toBe(TOKENS.slice(0, 5).join(''));
    expect(dataOf(parts.slice(restart + 1))).toBe(FULL);
  });

  it('resumes a stored pending intent as a stream after a reload: the answer from its start, no second model call', async () => {
    const server = await rig([], 15);
    const storage = memoryStorageAdapter();
    const gone = new AbortController();
    const page1 = createClient({ streaming, baseUrl: `${server.url}/`, storage, signal: gone.signal });
    const first = (await page1.stream('api/chat', { json: { q: 'hi' } }))[Symbol.asyncIterator]();
    await first.next();
    const kept = memoryStorageAdapter();
    for (const intent of await storage.list()) await kept.save(intent);
    gone.abort();
    const page2 = createClient({ streaming, baseUrl: `${server.url}/`, storage: kept });
    const stored = await page2.pending('api/chat');
    expect(stored).toBeDefined();
    const resumed = await page2.stream(stored!);
    expect(resumed.requestId).toBe(stored!.requestId);
    expect(dataOf(await collect(resumed))).toBe(FULL);
    expect(calls).toBe(1);
  });
});

describe('SendController({ stream: true })', () => {
  it('shows streaming with the text so far, then answered with the whole text, across a cut', async () => {
    const server = await rig([8]);
    const controller = new SendController<string>(createClient({ streaming, baseUrl: `${server.url}/` }), 'api/chat', {
      stream: true,
    });
    const seen: { status: SendStatus; text: string | undefined }[] = [];
    controller.subscribe(() => {
      const { status, text } = controller.getSnapshot();
      seen.push({ status, text });
    });
    const settled = await controller.send({ json: { q: 'hi' } });
    expect(settled).toMatchObject({ status: 'answered', data: FULL, text: FULL, replayed: false });
    const streamed = seen.filter((state) => state.status === 'streaming');
    expect(streamed.length).toBeGreaterThan(5);
    expect(streamed.every((state, i) => i === 0 || state.text!.startsWith(streamed[i - 1]!.text!))).toBe(true);
    expect(calls).toBe(1);
  });

  it('resumes the pending intent as a stream after a reload (resume()), showing the text from the start of the log', async () => {
    const server = await rig([], 15);
    const storage = memoryStorageAdapter();
    const gone = new AbortController();
    const page1 = new SendController<string>(
      createClient({ streaming, baseUrl: `${server.url}/`, storage, signal: gone.signal }),
      'api/chat',
      { stream: true },
    );
    const sent = page1.send({ json: { q: 'hi' } });
    for (const deadline = Date.now() + 5_000; page1.getSnapshot().status !== 'streaming' && Date.now() < deadline; ) {
      await sleep(5);
    }
    const kept = memoryStorageAdapter();
    for (const intent of await storage.list()) await kept.save(intent);
    gone.abort();
    await sent;
    const page2 = new SendController<string>(
      createClient({ streaming, baseUrl: `${server.url}/`, storage: kept }),
      'api/chat',
      {
        stream: true,
      },
    );
    const texts: string[] = [];
    page2.subscribe(() => {
      const { status, text } = page2.getSnapshot();
      if (status === 'streaming' && text !== undefined) texts.push(text);
    });
    const settled = await page2.resume();
    expect(settled).toMatchObject({ status: 'answered', data: FULL });
    expect(texts[0]).toBe(TOKENS[0]);
    expect(calls).toBe(1);
  });
});
