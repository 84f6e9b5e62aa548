/**
 * `npm run bench:stores`: the shared stores side by side in one run — RedisStore,
 * PostgresStore woken by LISTEN/NOTIFY, and PostgresStore polling (`notifications:
 * false`, as behind a transaction-mode pooler) — each on its own throwaway server on
 * loopback (test/support/redis-server.ts, test/support/postgres-server.ts):
 *
 * 1. round trips per first run (`runOnce`: acquire + complete) and per replay — Redis's
 *    counted by Redis (`INFO commandstats`), PostgreSQL's as the statements the store sent
 *    (each `pool.query` is one round trip) — and per first run of a JSON answer through
 *    the handler whose model takes longer than a flush window (100 ms; the stop watch on);
 * 2. first byte over HTTP (Node adapter) with each store, against the bare handler, interleaved;
 * 3. cross-instance lag: a chunk's production on instance A → a reader attached on
 *    instance B (two handlers, two stores, one server), p50 and p95.
 *
 * `STREAM_BENCH_ROUNDS` scales the rounds (default 5).
 */
import { loadavg } from 'node:os';
import { type PostgresPool, PostgresStore } from 'answer-once/postgres';
import { type IdempotencyStore, runOnce } from 'answer-once/server';
import { serve } from 'answer-once/server/node';
import pg from 'pg';
import { PostgresServer } from '../test/support/postgres-server.js';
import { commandCalls } from '../test/support/redis-stats.js';
import { crossInstanceLag } from './cross-instance.js';
import { median, quantile, table } from './stats.js';
import { chat, model } from './stream-model.js';
import { closeRedis, newId, protect, ROUNDS, redis, redisStore, type Work } from './stream-rig.js';

const postgres = await PostgresServer.start();
const pools: pg.Pool[] = [];
const postgresStores: PostgresStore[] = [];
let statements = 0;

/** A PostgresStore on a pool of its own (as another instance would have), counting the statements it sends. */
function postgresStore(notifications: boolean): PostgresStore {
  const pool = new pg.Pool({ connectionString: postgres.url, max: 10 });
  pool.on('error', () => {});
  pools.push(pool);
  // The pool itself (its Client and options open the listening connection), its query counted.
  const counted: PostgresPool = Object.assign(Object.create(pool) as pg.Pool, {
    query: (text: string, values?: unknown[]) => {
      statements += 1;
      return pool.query(text, values);
    },
  });
  const store = new PostgresStore({ pool: counted, notifications, pollIntervalMs: 100 });
  postgresStores.push(store);
  return store;
}

interface Backend {
  readonly name: string;
  /** A store as one more server instance would open it. */
  open(): Promise<IdempotencyStore>;
  /** Round trips sent while `run` ran. */
  count(run: () => Promise<unknown>): Promise<number>;
}

const redisTrips = async (run: () => Promise<unknown>): Promise<number> => {
  const before = await commandCalls([redis.port]);
  await run();
  const after = await commandCalls([redis.port]);
  return ['evalsha', 'eval'].reduce((sum, name) => sum + (after[name] ?? 0) - (before[name] ?? 0), 0);
};
const postgresTrips = async (run: () => Promise<unknown>): Promise<number> => {
  const before = statements;
  await run();
  return statements - before;
};

const backends: Backend[] = [
  { name: 'RedisStore', open: redisStore, count: redisTrips },
  { name: 'PostgresStore (LISTEN/NOTIFY)', open: async () => postgresStore(true), count: postgresTrips },
  { name: 'PostgresStore (polling, 100 ms)', open: async () => postgresStore(false), count: postgresTrips },
];

/** A JSON first run through the handler whose model takes 100 ms: past the 25 ms flush window. */
const SLOW_JSON: Work = async () => {
  await new Promise((resolve) => setTimeout(resolve, 100));
  return Response.json({ answer: 'x' });
};

function jsonSend(id: string): Request {
  return new Request('http://bench.local/api/chat', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'Idempotency-Key': id, 'X-Request-Id': id },
    body: '{"question":"q"}',
  });
}

/** 1. Round trips of runOnce's first run and replay (1 KB answer), per intent, over 200 intents. */
async function roundTrips(): Promise<string[][]> {
  const RESULT = JSON.stringify({ answer: 'x'.repeat(1_000) });
  const rows: string[][] = [];
  for (const backend of backends) {
    const store = await backend.open();
    const keys = Array.from({ length: 200 }, () => `answer-once:{bench:s:${newId()}}`);
    await runOnce(store, `answer-once:{bench:s:${newId()}}`, async () => RESULT); // scripts cached, tables made
    const first = await backend.count(async () => {
      for (const key of keys) await runOnce(store, key, async () => RESULT, { fingerprint: 'fp' });
    });
    const replay = await backend.count(async () => {
      for (const key of keys) await runOnce(store, key, async () => RESULT, { fingerprint: 'fp' });
    });
    const handle = protect(store, SLOW_JSON);
    await (await handle(jsonSend(newId()))).arrayBuffer(); // the stop channel listened to
    const ids = Array.from({ length: 20 }, newId);
    const slow = await backend.count(async () => {
      for (const id of ids) await (await handle(jsonSend(id))).arrayBuffer();
    });
    rows.push([
      backend.name,
      (first / keys.length).toFixed(2),
      (replay / keys.length).toFixed(2),
      (slow / ids.length).toFixed(2),
    ]);
  }
  return rows;
}

/** 2. Time to the first body byte over HTTP: bare, then each store, interleaved round by round. */
async function firstByte(): Promise<string[][]> {
  const work: Work = () => model(5, 20);
  const servers = [
    { name: 'bare handler', server: await serve((request) => work(request)) },
    ...(await Promise.all(
      backends.map(async (backend) => ({ name: backend.name, server: await serve(protect(await backend.open(), work)) })),
    )),
  ];
  const times = servers.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS * 8; round += 1) {
    for (const [index, { server }] of servers.entries()) {
      const started = performance.now();
      const response = await fetch(chat(server.url, newId()));
      const reader = response.body!.getReader();
      await reader.read();
      times[index]!.push(performance.now() - started);
      while (!(await reader.read()).done);
    }
  }
  await Promise.all(servers.map(({ server }) => server.close()));
  const base = median(times[0]!);
  return servers.map(({ name }, index) => [
    name,
    `${median(times[index]!).toFixed(2)} ms`,
    `${quantile(times[index]!, 0.95).toFixed(2)} ms`,
    index === 0 ? '—' : `+${(median(times[index]!) - base).toFixed(2)} ms`,
  ]);
}

/** 3. A chunk's production on instance A → a reader attached on instance B, for each store. */
async function crossInstance(backend: Backend): Promise<string[]> {
  const { delays, missed } = await crossInstanceLag(await backend.open(), await backend.open());
  return [
    backend.name,
    `${delays.length}${missed ? ` (${missed} of ${ROUNDS * 2} rounds did not attach)` : ''}`,
    `${median(delays).toFixed(1)} ms`,
    `${quantile(delays, 0.95).toFixed(1)} ms`,
  ];
}

try {
  console.log(`\nanswer-once stores bench — node ${process.version}, loopback, ${ROUNDS} rounds`);
  table(
    'Round trips per intent (runOnce, 1 KB answer, 200 intents; through the handler, model takes 100 ms, 20 intents)',
    ['store', 'first run', 'replay', 'first run, handler, 100 ms'],
    await roundTrips(),
  );
  table(
    'First byte over HTTP (5 events 20 ms apart), flush 25 ms',
    ['handler', 'median', 'p95', 'vs bare (median)'],
    await firstByte(),
  );
  const lags: string[][] = [];
  for (const backend of backends) lags.push(await crossInstance(backend));
  table('Production on A → reader attached on B (flush 25 ms)', ['store', 'events', 'p50', 'p95'], lags);
  const version = (await pools[0]?.query('SHOW server_version'))?.rows[0]?.server_version;
  const load = loadavg().map((n) => n.toFixed(1));
  console.log(`\nPostgreSQL ${version ?? '?'}, load average ${load.join(' / ')} (2 cores)`);
} finally {
  await Promise.all(postgresStores.map((store) => store.close()));
  await Promise.all(pools.map((pool) => pool.end()));
  await postgres.stop();
  await closeRedis();
}
