/**
 * Streamed answers over the Node adapter with real sockets on 127.0.0.1: first byte as
 * fast as the bare handler, a stream cut by destroying the socket and resumed with
 * `Last-Event-ID` or `Range`, an attach while live.
 */
import type { IncomingMessage } from 'node:http';
import { createIdempotencyHandler, type HandlerContext } from 'answer-once/server';
import { type ServedHandler, serve } from 'answer-once/server/node';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep } from '../../support/sleep.js';
import { parseEvents, postRaw, sseAnswer, tokens } from '../../support/stream-support.js';

const ID = 'req-stream-node-0001';
const range = (count: number): string[] => Array.from({ length: count }, (_, index) => `token ${index}`);

let servers: ServedHandler[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function start(work: (context: HandlerContext) => Response): Promise<{ url: string; calls: () => number }> {
  let calls = 0;
  const handle = createIdempotencyHandler({
    scope: () => ({ user: 'alice' }),
    handler: (_request, context) => {
      calls += 1;
      return work(context);
    },
  });
  const server = await serve(handle);
  servers.push(server);
  return { url: server.url, calls: () => calls };
}

/** Reads `response` until `count` events arrived, then destroys its socket (the network cut it). */
async function readThenCut(response: IncomingMessage, count: number): Promise<string> {
  let text = '';
  for await (const chunk of response) {
    text += String(chunk);
    if (parseEvents(text).length >= count) break; // leaving the loop destroys the stream
  }
  response.socket?.destroy();
  return text;
}

async function readAll(response: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of response) text += String(chunk);
  return text;
}

describe('streamed answers over serve()', () => {
  it('sends the first event while the model is still generating the next', async () => {
    // The model's second event waits until the client has the first (or 5 s): a buffered
    // server could only send both after those 5 s. bench/stream.ts times the first byte.
    let clientHasFirst!: () => void;
    const firstArrived = new Promise<void>((resolve) => (clientHasFirst = resolve));
    const held = Promise.race([firstArrived, sleep(5_000)]);
    const app = await start(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode('data: first\n\n'));
              await held;
              controller.enqueue(new TextEncoder().encode('data: second\n\n'));
              controller.close();
            },
          }),
          { headers: { 'Content-Type': 'text/event-stream' } },
        ),
    );
    const startedAt = performance.now();
    const response = await postRaw(app.url, ID);
    const first = String(await new Promise((resolve) => response.once('data', resolve)));
    clientHasFirst();
    expect(performance.now() - startedAt).toBeLessThan(4_000);
    expect(parseEvents(first).map(({ data }) => data)).toEqual(['first']);
    expect(tokens(parseEvents(first + (await readAll(response))))).toEqual(['first', 'second']);
  });

  it('resumes a stream cut after k events by Last-Event-ID: events k+1…n exactly once, one model call', async () => {
    const app = await start(() => sseAnswer(20, { delayMs: 10 }));
    const cut = await readThenCut(await postRaw(app.url, ID), 6);
    const seen = parseEvents(cut);
    const lastId = seen.at(-1)?.id ?? '';
    const resumed = await postRaw(app.url, ID, { 'Last-Event-ID': lastId });
    expect(resumed.statusCode).toBe(200);
    const rest = parseEvents(await readAll(resumed));
    expect([...tokens(seen), ...tokens(rest)]).toEqual(range(20));
    expect(app.calls()).toBe(1);
  });

  it('resumes a cut byte stream by Range: the rest of the bytes, once', async () => {
    const words = Array.from({ length: 50 }, (_, index) => `word${index} `);
    const app = await start(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              for (const word of words) {
                controller.enqueue(new TextEncoder().encode(word));
                await sleep(4);
              }
              controller.close();
            },
          }),
          { headers: { 'Content-Type': 'text/plain; charset=utf-8' } },
        ),
    );
    const first = await postRaw(app.url, ID);
    const generation = String(first.headers['x-idempotent-generation']);
    let got = '';
    for await (const chunk of first) {
      got += String(chunk);
      if (got.length >= 40) break;
    }
    first.socket?.destroy();
    const resumed = await postRaw(app.url, ID, {
      Range: `bytes=${Buffer.byteLength(got)}-`,
      'X-Idempotent-Generation': generation,
    });
    expect(resumed.statusCode).toBe(206);
    expect(got + (await readAll(resumed))).toBe(words.join(''));
    expect(app.calls()).toBe(1);
  });

  it('attaches a second connection to the live stream; both see the same bytes, one model call', async () => {
    const app = await start(() => sseAnswer(15, { delayMs: 10 }));
    const first = await postRaw(app.url, ID);
    await sleep(60);
    const second = await postRaw(app.url, ID);
    expect(second.headers['x-idempotent-attached']).toBe('true');
    const [a, b] = await Promise.all([readAll(first), readAll(second)]);
    expect(b).toBe(a);
    expect(tokens(parseEvents(a))).toEqual(range(15));
    expect(app.calls()).toBe(1);
  });
});
