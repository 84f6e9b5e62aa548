/**
 * `npm run bench:redis`: what answer-once/redis costs on a real Redis, against the plain
 * GET/SET a naive idempotency layer would send — same server, same client, same run.
 *
 * - round trips per path: counted by Redis itself (`INFO commandstats` deltas over the
 *   batch: the commands clients sent; the ones scripts run inside Redis are left out);
 * - throughput: ops/s with 64 operations in flight on one connection (node-redis
 *   pipelines them), median of the batches;
 * - latency: one operation at a time, median;
 * - the paths take turns, round by round, so background load weighs on all alike.
 *
 * Starts its own throwaway redis-server on a loopback port (test/support/redis-server.ts).
 */
import { randomUUID } from 'node:crypto';
import { RedisStore } from 'answer-once/redis';
import { runOnce } from 'answer-once/server';
import { createClient } from 'redis';
import { RedisServer } from '../test/support/redis-server.js';
import { type CommandCalls, commandCalls, serverMicros } from '../test/support/redis-stats.js';

const OPS = 3_000;
const ROUNDS = 7;
const LATENCY_OPS = 150;
const CONCURRENCY = 64;
const LEASE_MS = 10_000;
const TTL_MS = 600_000;
const RESULT = JSON.stringify({ answer: 'x'.repeat(1_000) }); // a 1 KB chat answer

const server = await RedisServer.start();
const client = await createClient({ url: server.url })
  .on('error', () => {})
  .connect();
const store = new RedisStore({ client });
const keyOf = (id: string): string => `answer-once:{bench:s:${id}}`;

interface Path {
  readonly name: string;
  /** Makes the keys one batch needs (untimed), then returns the timed operation. */
  prepare(count: number): Promise<(index: number) => Promise<unknown>>;
}

async function completedKeys(count: number): Promise<string[]> {
  const keys = Array.from({ length: count }, () => keyOf(randomUUID()));
  await inParallel(count, async (index) => {
    const claim = await store.acquire(keys[index]!, 'fp', LEASE_MS);
    if (claim.acquired) await store.complete(keys[index]!, claim.token, RESULT, TTL_MS);
  });
  return keys;
}

const paths: Path[] = [
  {
    name: 'GET/SET baseline, first run (SET NX + SET)',
    async prepare(count) {
      const keys = Array.from({ length: count }, () => keyOf(randomUUID()));
      return async (index) => {
        await client.set(keys[index]!, 'processing', { condition: 'NX', expiration: { type: 'PX', value: LEASE_MS } });
        await client.set(keys[index]!, RESULT, { expiration: { type: 'PX', value: TTL_MS } });
      };
    },
  },
  {
    name: 'GET/SET baseline, replay (GET)',
    async prepare(count) {
      const keys = Array.from({ length: count }, () => keyOf(randomUUID()));
      await inParallel(count, (index) => client.set(keys[index]!, RESULT, { expiration: { type: 'PX', value: TTL_MS } }));
      return (index) => client.get(keys[index]!);
    },
  },
  {
    name: 'RedisStore first run (acquire + complete)',
    async prepare(count) {
      const keys = Array.from({ length: count }, () => keyOf(randomUUID()));
      return async (index) => {
        const claim = await store.acquire(keys[index]!, 'fp', LEASE_MS);
        if (claim.acquired) await store.complete(keys[index]!, claim.token, RESULT, TTL_MS);
      };
    },
  },
  {
    name: 'RedisStore replay (acquire → COMPLETED)',
    async prepare(count) {
      const keys = await completedKeys(count);
      return (index) => store.acquire(keys[index]!, 'fp', LEASE_MS);
    },
  },
  {
    name: 'RedisStore get',
    async prepare(count) {
      const keys = await completedKeys(count);
      return (index) => store.get(keys[index]!);
    },
  },
  {
    name: 'runOnce first run (RedisStore)',
    async prepare(count) {
      const keys = Array.from({ length: count }, () => keyOf(randomUUID()));
      return (index) => runOnce(store, keys[index]!, async () => RESULT, { fingerprint: 'fp', leaseMs: LEASE_MS });
    },
  },
  {
    name: 'runOnce replay (RedisStore)',
    async prepare(count) {
      // RESULT is JSON, so runOnce's default codec decodes the stored 1 KB answer on replay.
      const keys = await completedKeys(count);
      return (index) => runOnce(store, keys[index]!, async () => RESULT, { fingerprint: 'fp', leaseMs: LEASE_MS });
    },
  },
];

async function inParallel(count: number, operation: (index: number) => Promise<unknown>, width = CONCURRENCY) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await operation(next++);
    }),
  );
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Commands clients send on these paths; what a script runs inside Redis has other names. */
const SENT = ['evalsha', 'eval', 'get', 'set'];

function sentCommands(before: CommandCalls, after: CommandCalls): number {
  return SENT.reduce((sum, name) => sum + (after[name] ?? 0) - (before[name] ?? 0), 0);
}

interface Row {
  readonly name: string;
  readonly roundTrips: number;
  /** Redis CPU per operation (INFO commandstats usec). */
  readonly serverMicros: number;
  readonly opsPerSecond: number;
  readonly latencyMicros: number;
}

/** Round trips per operation: a warm-up (loads the scripts into Redis's cache), then one counted batch. */
async function roundTrips(path: Path): Promise<number> {
  await inParallel(200, await path.prepare(200));
  const counted = await path.prepare(1_000);
  const before = await commandCalls([server.port]);
  await inParallel(1_000, counted);
  return sentCommands(before, await commandCalls([server.port])) / 1_000;
}

/**
 * Throughput and latency, with the paths interleaved round by round, so that whatever
 * else the machine does during the run weighs on every path alike.
 */
async function measureAll(): Promise<Row[]> {
  const trips: number[] = [];
  for (const path of paths) trips.push(await roundTrips(path));
  const micros: number[] = paths.map(() => 0);
  const throughput: number[][] = paths.map(() => []);
  const latency: number[][] = paths.map(() => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [index, path] of paths.entries()) {
      const operation = await path.prepare(OPS);
      const microsBefore = await serverMicros([server.port], SENT);
      const started = performance.now();
      await inParallel(OPS, operation);
      throughput[index]!.push(OPS / ((performance.now() - started) / 1_000));
      micros[index]! += (await serverMicros([server.port], SENT)) - microsBefore;
      const sequential = await path.prepare(LATENCY_OPS);
      for (let op = 0; op < LATENCY_OPS; op += 1) {
        const begun = performance.now();
        await sequential(op);
        latency[index]!.push((performance.now() - begun) * 1_000);
      }
    }
  }
  return paths.map((path, index) => ({
    name: path.name,
    roundTrips: trips[index]!,
    serverMicros: micros[index]! / (ROUNDS * OPS),
    opsPerSecond: median(throughput[index]!),
    latencyMicros: median(latency[index]!),
  }));
}

/**
 * Why the atomic script: two attempts of each intent arrive at once (a retry racing its
 * original on another instance). GET-then-SET lets both see "nothing yet" and run.
 */
async function duplicateRuns(intents: number): Promise<{ naive: number; store: number }> {
  let naive = 0;
  let atomic = 0;
  const ids = Array.from({ length: intents }, () => keyOf(randomUUID()));
  await inParallel(intents, async (index) => {
    const key = ids[index]!;
    const naiveAttempt = async (): Promise<void> => {
      if ((await client.get(`${key}:naive`)) !== null) return;
      await client.set(`${key}:naive`, 'processing', { expiration: { type: 'PX', value: LEASE_MS } });
      naive += 1; // the model call
      await client.set(`${key}:naive`, RESULT, { expiration: { type: 'PX', value: TTL_MS } });
    };
    const storeAttempt = async (): Promise<void> => {
      const claim = await store.acquire(key, 'fp', LEASE_MS);
      if (!claim.acquired) return;
      atomic += 1; // the model call
      await store.complete(key, claim.token, RESULT, TTL_MS);
    };
    await Promise.all([naiveAttempt(), naiveAttempt(), storeAttempt(), storeAttempt()]);
  });
  return { naive: naive / intents, store: atomic / intents };
}

try {
  const rows = await measureAll();
  const duplicates = await duplicateRuns(2_000);
  const baseline = { first: rows[0]!, replay: rows[1]! };
  const versus = (row: Row): Row => (/first run/.test(row.name) ? baseline.first : baseline.replay);
  const info = await client.info('server');
  const version = /redis_version:(\S+)/.exec(info)?.[1] ?? '?';

  console.log(`\nanswer-once/redis bench — redis-server ${version} on loopback, node ${process.version}, 1 KB answers`);
  console.log(
    `throughput: ${CONCURRENCY} in flight on one connection, median of ${ROUNDS} × ${OPS} ops; latency: one at a time, median of ${ROUNDS} × ${LATENCY_OPS}; paths interleaved round by round\n`,
  );
  const header = ['path', 'round trips', 'Redis CPU/op', 'ops/s', 'vs GET/SET', 'p50 latency', 'vs GET/SET'];
  const table = rows.map((row) => [
    row.name,
    row.roundTrips.toFixed(2),
    `${row.serverMicros.toFixed(1)} µs`,
    Math.round(row.opsPerSecond).toLocaleString('en-US'),
    `${(row.opsPerSecond / versus(row).opsPerSecond).toFixed(2)}×`,
    `${Math.round(row.latencyMicros)} µs`,
    `${(row.latencyMicros / versus(row).latencyMicros).toFixed(2)}×`,
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...table.map((cells) => cells[column]!.length)));
  const line = (cells: string[]): string =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join(' | ')} |`;
  console.log(line(header));
  console.log(
    `|${widths.map((width, column) => (column === 0 ? '-'.repeat(width + 2) : `${'-'.repeat(width + 1)}:`)).join('|')}|`,
  );
  for (const cells of table) console.log(line(cells));
  console.log(
    '\nround trips: commands clients sent, counted by Redis (INFO commandstats) over 1,000 ops; Redis CPU/op: their usec over all throughput batches;',
  );
  console.log('ratios: against the GET/SET row of the same kind (first run or replay)\n');
  console.log('two simultaneous attempts per intent, 2,000 intents — model calls per intent:');
  console.log(`| GET-then-SET | ${duplicates.naive.toFixed(2)} |`);
  console.log(`| RedisStore   | ${duplicates.store.toFixed(2)} |\n`);
} finally {
  await store.close();
  await client.close();
  await server.stop();
}
