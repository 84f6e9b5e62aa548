/**
 * `npm run bench:readers`: what thousands of readers attached to ONE live intent cost
 * (PROTOCOL.md § 13, § 14.6): N readers attach through the status route while the answer
 * is held after its first event; the heap they hold then (after a full collection), per
 * reader; then the model goes on and every reader must get the whole answer, byte for
 * byte the stored one. In-process (the handler's Responses, no sockets) over MemoryStore
 * and RedisStore, and over loopback sockets (the Node adapter) over MemoryStore.
 *
 * Starts its own throwaway redis-server on a loopback port. `READERS` sets the counts
 * (default `1000,5000`).
 */
import { Agent, request as httpRequest } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MemoryStore } from 'answer-once/server';
import { serve } from 'answer-once/server/node';
import { sleep, table } from './stats.js';
import { chat, model } from './stream-model.js';
import { closeRedis, newId, protect, redisStore, type Work } from './stream-rig.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const COUNTS = (process.env.READERS ?? '1000,5000').split(',').map(Number);
/** The answer: 400 events, about 16 KiB, the size the readers of a chat answer share. */
const EVENTS = 400;

async function heapNow(): Promise<number> {
  gc();
  await sleep(20);
  gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/** A reader: its first chunk is read when it attached; `rest` reads it to the end. */
interface Reader {
  readonly rest: () => Promise<Buffer>;
}

type Attach = (id: string) => Promise<Reader>;

function inProcess(handle: Work): Attach {
  return async (id) => {
    const response = await handle(new Request(`http://bench.test/api/status/${id}`));
    if (response.headers.get('x-idempotent-attached') !== 'true') throw new Error(`not attached: ${response.status}`);
    const reader = response.body!.getReader();
    const chunks: Uint8Array[] = [(await reader.read()).value!];
    return {
      rest: async () => {
        for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
        return Buffer.concat(chunks);
      },
    };
  };
}

function overSockets(url: string): Attach {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });
  return (id) =>
    new Promise((resolve, reject) => {
      const req = httpRequest(`${url}/api/status/${id}`, { agent });
      req.once('error', reject);
      req.once('response', (response) => {
        if (response.headers['x-idempotent-attached'] !== 'true') reject(new Error(`not attached: ${response.statusCode}`));
        const chunks: Buffer[] = [];
        response.once('data', (chunk: Buffer) => {
          chunks.push(chunk);
          response.pause();
          resolve({
            rest: () =>
              new Promise((done, fail) => {
                response.on('data', (more: Buffer) => chunks.push(more));
                response.once('end', () => done(Buffer.concat(chunks)));
                response.once('error', fail);
                response.resume();
              }),
          });
        });
      });
      req.end();
    });
}

/** One row: N readers on one intent whose model is held after its first event until `release`. */
async function measure(name: string, count: number, handle: Work, attach: Attach, release: () => void): Promise<string[]> {
  const id = newId();
  const first = await handle(chat('http://bench.test', id));
  const firstReader = first.body!.getReader();
  await firstReader.read();
  await sleep(100); // the head and the first event are logged
  const before = await heapNow();
  const readers: Reader[] = [];
  for (let batch = 0; batch < count; batch += 250) {
    readers.push(...(await Promise.all(Array.from({ length: Math.min(250, count - batch) }, () => attach(id)))));
  }
  const during = await heapNow();
  const started = performance.now();
  release();
  const [bodies] = await Promise.all([
    Promise.all(readers.map((reader) => reader.rest())),
    (async () => {
      while (!(await firstReader.read()).done);
    })(),
  ]);
  const elapsed = performance.now() - started;
  const stored = Buffer.from(await (await handle(chat('http://bench.test', id))).arrayBuffer());
  const whole = bodies.filter((body) => body.equals(stored)).length;
  return [
    name,
    count.toLocaleString('en'),
    `${((during - before) / count / 1_024).toFixed(1)} KiB`,
    `${((during - before) / 1_048_576).toFixed(1)} MiB`,
    `${(stored.byteLength / 1_024).toFixed(1)} KiB`,
    `${elapsed.toFixed(0)} ms`,
    `${whole.toLocaleString('en')} / ${count.toLocaleString('en')}`,
  ];
}

interface Variant {
  readonly name: string;
  readonly start: (work: Work) => Promise<{ handle: Work; attach: Attach; close?: () => Promise<void> }>;
}

const variants: Variant[] = [
  {
    name: 'MemoryStore, in-process',
    start: async (work) => {
      const handle = protect(new MemoryStore(), work);
      return { handle, attach: inProcess(handle) };
    },
  },
  {
    name: 'RedisStore, in-process',
    start: async (work) => {
      const handle = protect(await redisStore(), work);
      return { handle, attach: inProcess(handle) };
    },
  },
  {
    name: 'MemoryStore, loopback sockets',
    start: async (work) => {
      const handle = protect(new MemoryStore(), work);
      const served = await serve(handle);
      return { handle, attach: overSockets(served.url), close: served.close };
    },
  },
];

const rows: string[][] = [];
for (const count of COUNTS) {
  for (const variant of variants) {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { handle, attach, close } = await variant.start(() => model(EVENTS, 0, { hold: gate }));
    rows.push(await measure(variant.name, count, handle, attach, release));
    await close?.();
  }
}
table(
  'Readers attached to one live intent (held after its first event)',
  [
    'store, transport',
    'readers',
    'heap per reader',
    'heap, all',
    'answer',
    'rest delivered to all in',
    'whole, byte for byte',
  ],
  rows,
);
console.log('\n(measured on a shared 2-core machine under load from other work)');
await closeRedis();
