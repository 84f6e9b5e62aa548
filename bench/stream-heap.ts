/** The stream bench's sixth table: heap per in-flight stream, bare and over each store. */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PostgresStore } from 'answer-once/postgres';
import { MemoryStore } from 'answer-once/server';
import pg from 'pg';
import { PostgresServer } from '../test/support/postgres-server.js';
import { sleep } from './stats.js';
import { chat, model } from './stream-model.js';
import { newId, protect, redisStore, type Work } from './stream-rig.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** 6. Heap per in-flight stream: N answers held after their first event. */
export async function heapPerStream(): Promise<string[][]> {
  const N = 300;
  const rows: string[][] = [];
  const variants: [string, () => Promise<Work>][] = [
    ['bare handler', async () => (request) => hold(request)],
    ['answer-once, MemoryStore', async () => protect(new MemoryStore(), (request) => hold(request))],
    ['answer-once, RedisStore', async () => protect(await redisStore(), (request) => hold(request))],
    ['answer-once, PostgresStore', async () => protect(await postgresStore(), (request) => hold(request))],
  ];
  let release: () => void = () => {};
  let gate = new Promise<void>((resolve) => (release = resolve));
  const hold = (_request: Request): Response => model(3, 0, { hold: gate });
  /** N answers held after their first event; returns the heap they hold (after batches flushed and a full collection), then lets them end. */
  async function held(handle: Work): Promise<number> {
    gc();
    const before = process.memoryUsage().heapUsed;
    const readers = await Promise.all(
      Array.from({ length: N }, async () => {
        const reader = (await handle(chat('http://bench.test', newId()))).body!.getReader();
        await reader.read();
        return reader;
      }),
    );
    // Batches flushed and their appends answered: on a loaded machine a Redis append can take
    // longer than a flush window, and one in flight is not what a held stream keeps.
    await sleep(500);
    gc();
    const during = process.memoryUsage().heapUsed;
    release();
    await Promise.all(
      readers.map(async (reader) => {
        while (!(await reader.read()).done);
      }),
    );
    gate = new Promise<void>((resolve) => (release = resolve));
    return during - before;
  }
  try {
    for (const [name, make] of variants) {
      const handle = await make();
      // A first round warms up: the code the JIT compiles and its feedback are paid once, not per stream.
      await held(handle);
      rows.push([name, String(N), `${((await held(handle)) / N / 1_024).toFixed(1)} KiB`]);
    }
  } finally {
    await closePostgres();
  }
  return rows;
}

let postgres: { server: PostgresServer; pool: pg.Pool; store: PostgresStore } | undefined;

/** A PostgresStore on its own throwaway server (started on first use). */
async function postgresStore(): Promise<PostgresStore> {
  const server = await PostgresServer.start();
  const pool = new pg.Pool({ connectionString: server.url, max: 10 });
  pool.on('error', () => {});
  postgres = { server, pool, store: new PostgresStore({ pool }) };
  return postgres.store;
}

async function closePostgres(): Promise<void> {
  if (!postgres) return;
  await postgres.store.close();
  await postgres.pool.end();
  await postgres.server.stop();
  postgres = undefined;
}
