/**
 * `npm run bench:steps`: what a journaled step (`ctx.step`, PROTOCOL.md § 15) costs on
 * each store — MemoryStore, RedisStore and PostgresStore, each on its own throwaway server
 * on loopback — beside the same `runOnce` without steps:
 *
 * 1. round trips per intent: a first run of 3 steps, a re-run after it failed (3 steps
 *    replayed), and a run without steps — Redis's counted by Redis (`INFO commandstats`),
 *    PostgreSQL's as the statements the store sent, MemoryStore's as its calls;
 * 2. this process's CPU and the wall time per intent for each, and per step over the run
 *    without steps.
 *
 * Each case runs in 5 interleaved rounds after a warm-up round; the table has their medians.
 * `STEP_BENCH_INTENTS` scales the intents per case (default 1,000).
 */
import { loadavg } from 'node:os';
import { type PostgresPool, PostgresStore } from 'answer-once/postgres';
import { type IdempotencyStore, MemoryStore, type RunContext, runOnce } from 'answer-once/server';
import pg from 'pg';
import { PostgresServer } from '../test/support/postgres-server.js';
import { commandCalls } from '../test/support/redis-stats.js';
import { median, table } from './stats.js';
import { closeRedis, newId, redis, redisStore } from './stream-rig.js';

const INTENTS = Number(process.env.STEP_BENCH_INTENTS ?? 1_000);
const ROUNDS = 5;
const STEPS = 3;
const postgres = await PostgresServer.start();
const pool = new pg.Pool({ connectionString: postgres.url, max: 10 });
pool.on('error', () => {});
let statements = 0;
let memoryCalls = 0;

/** A MemoryStore counting its calls (each one round trip on a networked store). */
function countedMemory(): IdempotencyStore {
  const store = new MemoryStore();
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        memoryCalls += 1;
        return (value as (...args: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

interface Backend {
  readonly name: string;
  readonly store: IdempotencyStore;
  /** Round trips sent while `run` ran. */
  count(run: () => Promise<unknown>): Promise<number>;
}

const counting =
  (read: () => number) =>
  async (run: () => Promise<unknown>): Promise<number> => {
    const before = read();
    await run();
    return read() - before;
  };

// The pool itself (its Client and options open the listening connection), its query counted.
const counted: PostgresPool = Object.assign(Object.create(pool) as pg.Pool, {
  query: (text: string, values?: unknown[]) => {
    statements += 1;
    return pool.query(text, values);
  },
});
const postgresStore = new PostgresStore({ pool: counted });
const backends: Backend[] = [
  { name: 'MemoryStore', store: countedMemory(), count: counting(() => memoryCalls) },
  {
    name: 'RedisStore',
    store: await redisStore(),
    count: async (run) => {
      const before = await commandCalls([redis.port]);
      await run();
      const after = await commandCalls([redis.port]);
      return ['evalsha', 'eval'].reduce((sum, name) => sum + (after[name] ?? 0) - (before[name] ?? 0), 0);
    },
  },
  { name: 'PostgresStore', store: postgresStore, count: counting(() => statements) },
];

const ANSWER = { answer: 'x'.repeat(200) };
/** The work: `steps` steps of a 200-byte value each, then the answer; it throws when `crash`. */
const work =
  (steps: number, crash: boolean) =>
  async ({ step }: RunContext): Promise<typeof ANSWER> => {
    for (let index = 0; index < steps; index += 1) await step('search', () => ({ hit: 'y'.repeat(200) }));
    if (crash) throw new Error('crash after the steps');
    return ANSWER;
  };

interface Measured {
  readonly trips: number;
  readonly cpuUs: number;
  readonly wallUs: number;
}

/** Runs `each` for every key, counting round trips, CPU (user + system) and wall time per intent. */
async function measure(
  backend: Backend,
  keys: readonly string[],
  each: (key: string) => Promise<unknown>,
): Promise<Measured> {
  let cpuUs = 0;
  let wallUs = 0;
  const trips = await backend.count(async () => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (const key of keys) await each(key);
    wallUs = (performance.now() - started) * 1000;
    const used = process.cpuUsage(cpu);
    cpuUs = used.user + used.system;
  });
  return { trips: trips / keys.length, cpuUs: cpuUs / keys.length, wallUs: wallUs / keys.length };
}

const options = { fingerprint: 'fp', maxRuns: 5 };

/** One round of the three cases over `count` intents each: no steps, a first run of steps, a re-run replaying them. */
async function round(backend: Backend, count: number): Promise<{ bare: Measured; first: Measured; replayed: Measured }> {
  const { store } = backend;
  const keys = (): string[] => Array.from({ length: count }, () => `answer-once:{bench:s:${newId()}}`);
  const crashed = keys();
  for (const key of crashed) await runOnce(store, key, work(STEPS, true), options).catch(() => undefined);
  return {
    bare: await measure(backend, keys(), (key) => runOnce(store, key, work(0, false), options)),
    first: await measure(backend, keys(), (key) => runOnce(store, key, work(STEPS, false), options)),
    replayed: await measure(backend, crashed, (key) => runOnce(store, key, work(STEPS, false), options)),
  };
}

const middle = (values: readonly Measured[], field: keyof Measured): number => median(values.map((value) => value[field]));

/** The median of `ROUNDS` interleaved rounds, after one round that warms the code, the scripts and the tables. */
async function bench(backend: Backend): Promise<string[][]> {
  const count = Math.ceil(INTENTS / ROUNDS);
  await round(backend, count);
  const rounds: Awaited<ReturnType<typeof round>>[] = [];
  for (let index = 0; index < ROUNDS; index += 1) rounds.push(await round(backend, count));
  const bare = rounds.map((measured) => measured.bare);
  const row = (name: string, measured: readonly Measured[], steps: boolean): string[] => {
    const cell = (field: keyof Measured, unit: string, digits: number): string[] => {
      const value = middle(measured, field);
      const perStep = (value - middle(bare, field)) / STEPS;
      return [`${value.toFixed(digits)}${unit}`, steps ? `${perStep.toFixed(digits)}${unit}` : '—'];
    };
    return [backend.name, name, ...cell('trips', '', 2), ...cell('cpuUs', ' µs', 1), ...cell('wallUs', ' µs', 1)];
  };
  return [
    row('no steps', bare, false),
    row(
      `first run, ${STEPS} steps`,
      rounds.map((measured) => measured.first),
      true,
    ),
    row(
      `re-run, ${STEPS} steps replayed`,
      rounds.map((measured) => measured.replayed),
      true,
    ),
  ];
}

try {
  console.log(
    `\nanswer-once step journal bench — node ${process.version}, loopback, ${INTENTS} intents per case in ${ROUNDS} rounds`,
  );
  const rows: string[][] = [];
  for (const backend of backends) rows.push(...(await bench(backend)));
  table(
    `Round trips, CPU (this process) and wall time per intent, runOnce with ${STEPS} steps of 200 B vs none`,
    ['store', 'run', 'round trips', 'per step', 'CPU', 'per step', 'wall', 'per step'],
    rows,
  );
  const version = (await pool.query('SHOW server_version')).rows[0]?.server_version;
  const load = loadavg().map((n) => n.toFixed(1));
  console.log(`\nPostgreSQL ${version ?? '?'}, load average ${load.join(' / ')} (2 cores)`);
} finally {
  await postgresStore.close();
  await pool.end();
  await postgres.stop();
  await closeRedis();
}
