/**
 * `npm run bench:stream`: what streaming an answer through answer-once costs, against the
 * bare handler in the same process (each goal printed met or missed):
 *
 * 1. first-byte latency over HTTP on loopback (Node adapter), median — goal: within 5 ms of bare;
 * 2. CPU per 1,000-event SSE answer, in-process, memory store — goal: ≤ 1.3× bare;
 * 3. Redis round trips per streamed answer, by flush window, counted by Redis — goal:
 *    ≤ 2 + generation time / window;
 * 4. a chunk's production → a reader attached on the other instance (two handlers, two
 *    RedisStores, one redis-server), p95 — goal: ≤ 50 ms;
 * 5. resume latency, request in → first missing byte out (Last-Event-ID), a live and a
 *    finished answer — goal: ≤ 10 ms memory, ≤ 15 ms Redis;
 * 6. heap per in-flight stream (held after its first event), memory, Redis and PostgreSQL stores.
 *
 * Starts its own throwaway redis-server on a loopback port (test/support/redis-server.ts).
 * `STREAM_BENCH_ROUNDS` scales the rounds (default 5).
 */
import { MemoryStore } from 'answer-once/server';
import { serve } from 'answer-once/server/node';
import { commandCalls } from '../test/support/redis-stats.js';
import { crossInstanceLag } from './cross-instance.js';
import { median, quantile, sleep, table } from './stats.js';
import { heapPerStream } from './stream-heap.js';
import { chat, drain, model } from './stream-model.js';
import { closeRedis, newId, protect, ROUNDS, redis, redisStore, verdict, type Work } from './stream-rig.js';

/** 1. Time to the first body byte over HTTP, bare vs answer-once (memory, Redis), interleaved. */
async function firstByte(): Promise<string[][]> {
  const work: Work = () => model(5, 20);
  const servers = {
    bare: await serve((request) => work(request)),
    memory: await serve(protect(new MemoryStore(), work)),
    redis: await serve(protect(await redisStore(), work)),
  };
  const times: Record<keyof typeof servers, number[]> = { bare: [], memory: [], redis: [] };
  for (let round = 0; round < ROUNDS * 8; round += 1) {
    for (const name of Object.keys(servers) as (keyof typeof servers)[]) {
      const started = performance.now();
      const response = await fetch(chat(servers[name].url, newId()));
      const reader = response.body!.getReader();
      await reader.read();
      times[name].push(performance.now() - started);
      while (!(await reader.read()).done);
    }
  }
  await Promise.all(Object.values(servers).map((server) => server.close()));
  const base = median(times.bare);
  const row = (name: string, values: number[], goal: boolean) => [
    name,
    `${median(values).toFixed(2)} ms`,
    `${quantile(values, 0.95).toFixed(2)} ms`,
    `+${(median(values) - base).toFixed(2)} ms`,
    goal ? verdict(median(values) - base <= 5) : '—',
  ];
  return [
    row('bare handler', times.bare, false),
    row('answer-once, MemoryStore', times.memory, true),
    row('answer-once, RedisStore', times.redis, true),
  ];
}

/** 2. CPU (user + system) per 1,000-event answer, in-process, read to its end. */
async function cpuPerAnswer(): Promise<string[][]> {
  const EVENTS = 1_000;
  const PER_ROUND = 20;
  const work: Work = () => model(EVENTS, 0);
  const handle = protect(new MemoryStore({ maxEntries: 100_000 }), work);
  const cpu = async (run: () => Promise<unknown>): Promise<number> => {
    const before = process.cpuUsage();
    for (let n = 0; n < PER_ROUND; n += 1) await run();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1_000 / PER_ROUND;
  };
  const results = { bare: [] as number[], memory: [] as number[], replay: [] as number[] };
  const replayed = newId();
  await drain(await handle(chat('http://bench.test', replayed)));
  for (let round = 0; round < ROUNDS + 1; round += 1) {
    const bare = await cpu(async () => drain(await work(chat('http://bench.test', newId()))));
    const memory = await cpu(async () => drain(await handle(chat('http://bench.test', newId()))));
    const replay = await cpu(async () => drain(await handle(chat('http://bench.test', replayed))));
    if (round === 0) continue; // warm-up
    results.bare.push(bare);
    results.memory.push(memory);
    results.replay.push(replay);
  }
  const base = median(results.bare);
  return [
    ['bare handler', `${base.toFixed(2)} ms`, '1.00×', '—'],
    [
      'answer-once fresh answer, MemoryStore',
      `${median(results.memory).toFixed(2)} ms`,
      `${(median(results.memory) / base).toFixed(2)}×`,
      verdict(median(results.memory) / base <= 1.3),
    ],
    [
      'answer-once replay, MemoryStore',
      `${median(results.replay).toFixed(2)} ms`,
      `${(median(results.replay) / base).toFixed(2)}×`,
      '—',
    ],
  ];
}

/** 3. Redis round trips per streamed answer (2 s of generation), by flush window. */
async function roundTrips(): Promise<string[][]> {
  const EVENTS = 80;
  const DELAY_MS = 25;
  const ANSWERS = 4;
  const rows: string[][] = [];
  for (const flushMs of [10, 25, 100, 250]) {
    const handle = protect(await redisStore(), () => model(EVENTS, DELAY_MS), flushMs);
    await drain(await handle(chat('http://bench.test', newId()))); // Redis's script cache
    const before = await commandCalls([redis.port]);
    const durations = await Promise.all(
      Array.from({ length: ANSWERS }, async () => {
        const begun = performance.now();
        await drain(await handle(chat('http://bench.test', newId())));
        return performance.now() - begun;
      }),
    );
    const after = await commandCalls([redis.port]);
    const trips = ((after.evalsha ?? 0) + (after.eval ?? 0) - (before.evalsha ?? 0) - (before.eval ?? 0)) / ANSWERS;
    const appends = ((after.xadd ?? 0) - (before.xadd ?? 0)) / ANSWERS; // head + one per batch
    const generation = median(durations);
    const goal = 2 + generation / flushMs;
    rows.push([
      `${flushMs} ms`,
      `${Math.round(generation)} ms`,
      trips.toFixed(1),
      (appends - 1).toFixed(1),
      `≤ ${goal.toFixed(1)}`,
      verdict(trips <= goal),
    ]);
  }
  return rows;
}

/** 4. Production → a reader attached on the other instance (two handlers, two stores, one Redis). */
async function crossInstance(): Promise<string[][]> {
  const { delays: live } = await crossInstanceLag(await redisStore(), await redisStore());
  return [
    [
      'RedisStore, flush 25 ms',
      String(live.length),
      `${median(live).toFixed(1)} ms`,
      `${quantile(live, 0.95).toFixed(1)} ms`,
      `${Math.max(...live).toFixed(1)} ms`,
      verdict(quantile(live, 0.95) <= 50),
    ],
  ];
}

/** 5. Request in → first missing byte out, resuming with Last-Event-ID (live and finished answers). */
async function resume(): Promise<string[][]> {
  const rows: string[][] = [];
  for (const [name, store, goal] of [
    ['MemoryStore', new MemoryStore(), 10],
    ['RedisStore', await redisStore(), 15],
  ] as const) {
    const server = await serve(protect(store, () => model(40, 15)));
    const live: number[] = [];
    const finished: number[] = [];
    const firstMissing = async (id: string, lastEventId: string): Promise<number> => {
      const started = performance.now();
      const response = await fetch(chat(server.url, id, { 'last-event-id': lastEventId }));
      const reader = response.body!.getReader();
      await reader.read();
      const took = performance.now() - started;
      void reader.cancel();
      return took;
    };
    for (let round = 0; round < ROUNDS * 4; round += 1) {
      const id = newId();
      const first = await fetch(chat(server.url, id));
      const reader = first.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      while ((text.match(/\n\n/g) ?? []).length < 10) text += decoder.decode((await reader.read()).value, { stream: true });
      const ids = [...text.matchAll(/^id: (\S+)$/gm)].map((match) => match[1]!);
      await reader.cancel(); // the connection broke after ~10 events; the answer goes on
      await sleep(60); // those events are in the log by now (flush 25 ms)
      live.push(await firstMissing(id, ids[4]!));
      await sleep(700); // the answer ended
      finished.push(await firstMissing(id, ids[4]!));
    }
    await server.close();
    rows.push([
      name,
      `${median(live).toFixed(2)} ms`,
      `${median(finished).toFixed(2)} ms`,
      `≤ ${goal} ms`,
      verdict(Math.max(median(live), median(finished)) <= goal),
    ]);
  }
  return rows;
}

console.log(`answer-once stream bench — Node ${process.version}, redis-server on loopback, ${new Date().toISOString()}`);
try {
  table(
    'First byte over HTTP (Node adapter, loopback), 5 events 20 ms apart',
    ['handler', 'median', 'p95', 'vs bare (median)', 'goal ≤ +5 ms'],
    await firstByte(),
  );
  table(
    'CPU per 1,000-event SSE answer, in-process, read to its end',
    ['path', 'CPU per answer', 'vs bare', 'goal ≤ 1.3×'],
    await cpuPerAnswer(),
  );
  table(
    'Redis round trips per streamed answer (80 events 25 ms apart, 4 at once), counted by Redis',
    ['flush window', 'generation', 'round trips', 'appends', 'goal', ''],
    await roundTrips(),
  );
  table(
    'A chunk’s production → a reader attached on the other instance (HTTP, two handlers, one Redis)',
    ['store', 'events', 'median', 'p95', 'max', 'goal p95 ≤ 50 ms'],
    await crossInstance(),
  );
  table(
    'Resume with Last-Event-ID over HTTP: request in → first missing byte out (median)',
    ['store', 'live answer', 'finished answer', 'goal', ''],
    await resume(),
  );
  table(
    'Heap per in-flight stream (held after its first event, after GC)',
    ['handler', 'streams', 'heap per stream'],
    await heapPerStream(),
  );
} finally {
  await closeRedis();
}
