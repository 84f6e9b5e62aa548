/**
 * One slow client cannot hold the server's memory (PROTOCOL.md § 13, § 14.10): the first
 * caller's connection, on a real loopback socket, stops reading while the model streams.
 * The server keeps at most `maxQueuedBytes` for it, the work runs to its end unslowed,
 * and the caller, reading again, gets the whole answer from the log, byte for byte.
 */
import type { IncomingMessage } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createIdempotencyHandler, type IdempotencyHandlerOptions } from 'answer-once/server';
import { type ServedHandler, serve } from 'answer-once/server/node';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep } from '../../support/sleep.js';
import { parseEvents, postRaw } from '../../support/stream-support.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MiB = 1_048_576;
const encoder = new TextEncoder();

let servers: ServedHandler[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

/**
 * A model that writes `total` bytes as fast as it is read: SSE events of ~16 KiB, or raw
 * bytes; with `io`, each chunk after a turn of the event loop (as one read off a socket).
 */
function fastModel(total: number, sse: boolean, io: boolean, onEnd: () => void): Response {
  const line = 'x'.repeat(16_384 - 8);
  let sent = 0;
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (io) await new Promise((resolve) => setImmediate(resolve));
      if (sent >= total) {
        onEnd();
        return controller.close();
      }
      const chunk = encoder.encode(sse ? `data: ${index}:${line}\n\n` : `${index}:${line}\n`);
      index += 1;
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return new Response(body, { headers: { 'Content-Type': sse ? 'text/event-stream' : 'application/octet-stream' } });
}

async function start(
  total: number,
  sse: boolean,
  options: Partial<IdempotencyHandlerOptions> = {},
  io = true,
): Promise<{ url: string; calls: () => number; ended: Promise<void> }> {
  let calls = 0;
  let ended!: () => void;
  const done = new Promise<void>((resolve) => (ended = resolve));
  const handle = createIdempotencyHandler({
    scope: () => ({ user: 'alice' }),
    ...options,
    handler: () => {
      calls += 1;
      return fastModel(total, sse, io, ended);
    },
  });
  const server = await serve(handle);
  servers.push(server);
  return { url: server.url, calls: () => calls, ended: done };
}

async function readAll(response: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The heap and the buffers outside it, after a full collection. */
async function retained(): Promise<number> {
  gc();
  await sleep(50); // buffers whose owners were collected are freed after a turn
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

describe('a first caller whose connection stops reading', () => {
  it.each([
    ['read off a socket', true],
    ['all there at once', false],
  ])(
    'holds at most about maxQueuedBytes of the server’s memory, not the answer, and the work runs to its end (a model %s)',
    async (_name, io) => {
      const total = 64 * MiB;
      const app = await start(total, true, { maxQueuedBytes: MiB }, io);
      const before = await retained();
      const response = await postRaw(app.url, io ? 'req-slow-caller-io01' : 'req-slow-caller-now1'); // never read until the work ended
      await app.ended; // the model was never slowed by the caller
      await sleep(100); // the record's write lands
      const held = (await retained()) - before;
      console.info(
        `[slow caller] ${(total / MiB).toFixed(0)} MiB answer, socket not reading: ${(held / MiB).toFixed(1)} MiB held`,
      );
      // Without a bound, the whole 64 MiB stays queued for the socket. With it: the queue
      // (1 MiB), the log's newest maxResponseBytes (1 MiB), what the socket buffers hold.
      expect(held).toBeLessThan(16 * MiB);
      // Reading again, it gets what the log still keeps; the rest is gone (§ 14.10), said so.
      const text = (await readAll(response)).toString('utf8');
      const events = parseEvents(text);
      expect(events.at(-1)).toMatchObject({ event: 'answer-once.error' });
      expect(JSON.parse(events.at(-1)!.data)).toMatchObject({ code: 'response-not-replayable', status: 410 });
      expect(app.calls()).toBe(1);
    },
    120_000,
  );

  it.each([
    ['an event stream', true],
    ['a byte stream', false],
  ])(
    'gets %s whole, byte for byte, when it reads again after the work ended',
    async (_name, sse) => {
      const total = 6 * MiB;
      const app = await start(total, sse, { maxQueuedBytes: 256 * 1_024, maxResponseBytes: 16 * MiB });
      const id = sse ? 'req-slow-caller-sse1' : 'req-slow-caller-byte';
      const response = await postRaw(app.url, id);
      await app.ended;
      await sleep(100);
      const body = await readAll(response);
      const replay = await postRaw(app.url, id);
      expect(replay.headers['x-idempotent-replayed']).toBe('true');
      const stored = await readAll(replay);
      expect(stored.byteLength).toBeGreaterThanOrEqual(total);
      expect(body.equals(stored)).toBe(true);
      expect(app.calls()).toBe(1);
    },
    120_000,
  );
});

describe('maxQueuedBytes', () => {
  it.each([0, -1, 1.5, Number.NaN, '1'])('refuses %s, naming the option', (value) => {
    expect(() =>
      createIdempotencyHandler({
        scope: () => ({ user: 'alice' }),
        handler: () => new Response('ok'),
        maxQueuedBytes: value as number,
      }),
    ).toThrow(/maxQueuedBytes/);
  });
});
