/**
 * `npx tsx bench/redis-answers.ts`: what an answer costs on Redis, answer-once's
 * RedisStore against `resumable-stream` (the AI SDK's resumable streams, which store
 * nothing while nobody resumes) and `assistant-stream`'s resumable streams (assistant-ui;
 * like answer-once, it keeps every answer in Redis) on the same redis-server, in the same
 * process:
 *
 * 1. commands per first run of a JSON answer, by name, counted by Redis itself
 *    (`INFO commandstats`; commands a script runs inside Redis are not round trips and
 *    are left out) — a model that answers at once, and one that takes 100 ms;
 * 2. commands and Redis CPU per paced answer (20 events × 50 ms), the median of
 *    `REDIS_BENCH_ROUNDS` rounds (default 5) in which the three take turns;
 * 3. `CONCURRENT` streamed answers at once (1 s each), first byte p50 and events/s.
 *
 * Only the first two are independent of the machine's load; the third is wall time.
 * Starts its own throwaway redis-server on a loopback port.
 */
import { loadavg } from 'node:os';
import { RedisStore } from 'answer-once/redis';
import { createIdempotencyHandler } from 'answer-once/server';
import { createResumableStreamContext as createAssistantStreamContext } from 'assistant-stream/resumable';
import { createRedisResumableStreamStore } from 'assistant-stream/resumable/redis';
import { createClient } from 'redis';
import { createResumableStreamContext } from 'resumable-stream';
import { RedisServer, rawCommand } from '../test/support/redis-server.js';
import { median, sleep, table } from './stats.js';
import { chat, drain, model } from './stream-model.js';

const ANSWERS = 20;
/** Rounds of the paced answers, each of the three in turn (`REDIS_BENCH_ROUNDS`). */
const ROUNDS = Number(process.env.REDIS_BENCH_ROUNDS ?? 5);
const CONCURRENT = (process.env.CONCURRENT ?? '100,1000').split(',').map(Number);
/** Commands answer-once's clients send; the rest Redis books are run inside its scripts. */
const OURS = ['evalsha', 'eval', 'ssubscribe', 'sunsubscribe'];

const server = await RedisServer.start();
const connect = () =>
  createClient({ url: server.url })
    .on('error', () => {})
    .connect();
const client = await connect();
const store = new RedisStore({ client });
const handle = (work: () => Response | Promise<Response>) =>
  createIdempotencyHandler({ store, scope: () => ({ user: 'bench-user' }), handler: async () => work() });
const publisher = await connect();
const subscriber = await connect();
const peer = createResumableStreamContext({ waitUntil: null, publisher, subscriber });
const keeper = createAssistantStreamContext({ store: createRedisResumableStreamStore(client) });
let serial = 0;
const newId = (): string => `bench-redis-${process.pid}-${String((serial += 1)).padStart(8, '0')}`;

/** Calls and microseconds per command name, as Redis counts them. */
async function usage(): Promise<Record<string, { calls: number; usec: number }>> {
  const info = await rawCommand(server.port, 'INFO commandstats');
  const found: Record<string, { calls: number; usec: number }> = {};
  for (const [, name = '', calls, usec] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    found[name] = { calls: Number(calls), usec: Number(usec) };
  }
  return found;
}

/** Per answer: the commands `sent` (names: all but those run inside scripts) and their Redis CPU. */
async function perAnswer(answers: number, sent: (name: string) => boolean, run: () => Promise<unknown>) {
  const before = await usage();
  await run();
  await sleep(5_500); // the idle unsubscribes land
  const after = await usage();
  const calls: Record<string, number> = {};
  let usec = 0;
  for (const [name, { calls: count, usec: micros }] of Object.entries(after)) {
    if (name === 'info' || !sent(name)) continue;
    const diff = count - (before[name]?.calls ?? 0);
    if (diff > 0) calls[name] = diff / answers;
    usec += micros - (before[name]?.usec ?? 0);
  }
  const total = Object.values(calls).reduce((sum, count) => sum + count, 0);
  const names = Object.entries(calls)
    .map(([name, count]) => `${name} ${count.toFixed(2)}`)
    .join(', ');
  return { total, names, usec: usec / answers };
}

type PerAnswer = Awaited<ReturnType<typeof perAnswer>>;
const ours = (name: string) => OURS.includes(name);
const paced = handle(() => model(20, 50));
const json = (delayMs: number) => async () => {
  const send = handle(async () => {
    if (delayMs > 0) await sleep(delayMs);
    return Response.json({ answer: 'Paris' });
  });
  for (let n = 0; n < ANSWERS; n += 1) await drain(await send(chat('http://bench.test', newId())));
};
// Warm: every script cached (a cold cache costs one EVAL per script, once), the store's subscriber connected.
await json(100)();
await drain(await paced(chat('http://bench.test', newId())));
const firstRun = await perAnswer(ANSWERS, ours, json(0));
const slowFirstRun = await perAnswer(ANSWERS, ours, json(100));

const peerStream = () => {
  const body = model(20, 50).body!.pipeThrough(new TextDecoderStream());
  return peer.resumableStream(newId(), () => body);
};
// Its appends and its finish are scripts (GET, XADD, EXPIRE and SET inside): XADD and EXPIRE
// are booked only from inside them, and left out like answer-once's inner commands.
const keeperSent = (name: string) => !name.startsWith('config') && name !== 'xadd' && name !== 'expire';
const pacedRuns = {
  ours: () =>
    perAnswer(ANSWERS, ours, () =>
      Promise.all(Array.from({ length: ANSWERS }, async () => drain(await paced(chat('http://bench.test', newId()))))),
    ),
  peer: () =>
    perAnswer(
      ANSWERS,
      (name) => !name.startsWith('config'),
      () =>
        Promise.all(
          Array.from({ length: ANSWERS }, async () =>
            drain(new Response((await peerStream())!.pipeThrough(new TextEncoderStream()))),
          ),
        ),
    ),
  keeper: () =>
    perAnswer(ANSWERS, keeperSent, () =>
      Promise.all(
        Array.from({ length: ANSWERS }, async () =>
          drain(new Response(await keeper.run(newId(), () => model(20, 50).body!))),
        ),
      ),
    ),
};
/** Redis CPU moves with the machine's load: the three alternate, round by round, and each keeps its median. */
const pacedRounds: Record<keyof typeof pacedRuns, PerAnswer[]> = { ours: [], peer: [], keeper: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  for (const name of ['ours', 'peer', 'keeper'] as const) pacedRounds[name].push(await pacedRuns[name]());
}
const medianOf = (runs: PerAnswer[]): PerAnswer => ({ ...runs.at(-1)!, usec: median(runs.map(({ usec }) => usec)) });
const pacedOurs = medianOf(pacedRounds.ours);
const pacedPeer = medianOf(pacedRounds.peer);
const pacedKeeper = medianOf(pacedRounds.keeper);
const cpuRatios = pacedRounds.ours.map(({ usec }, round) => (usec / pacedRounds.keeper[round]!.usec).toFixed(2));

const countRow = (name: string, { total, names, usec }: PerAnswer) => [
  name,
  total.toFixed(2),
  names,
  `${usec.toFixed(1)} µs`,
];
table(
  `Redis commands per answer, counted by Redis; Redis CPU per paced answer the median of ${ROUNDS} rounds (load ${loadavg()[0]!.toFixed(1)})`,
  ['answer', 'commands per answer', 'by name', 'Redis CPU per answer'],
  [
    countRow('answer-once, first run of a JSON answer (model answers at once)', firstRun),
    countRow('answer-once, first run of a JSON answer (model takes 100 ms)', slowFirstRun),
    countRow('answer-once, paced answer (20 events × 50 ms)', pacedOurs),
    countRow('resumable-stream, paced answer (20 events × 50 ms)', pacedPeer),
    countRow('assistant-stream, paced answer (20 events × 50 ms)', pacedKeeper),
    ['Redis CPU, answer-once vs resumable-stream', '', '', `${(pacedOurs.usec / pacedPeer.usec).toFixed(2)}×`],
    ['Redis CPU, answer-once vs assistant-stream', '', '', `${(pacedOurs.usec / pacedKeeper.usec).toFixed(2)}×`],
    ['the same, round by round', '', '', `${cpuRatios.join('×, ')}×`],
  ],
);

/** Events in an SSE chunk: lines that start with `data:` (the model writes one per event). */
const eventsIn = (text: string): number => text.split('data:').length - 1;

/** `count` answers at once: the first byte of each (median) and events per second over the batch. */
async function concurrent(count: number, open: () => Promise<ReadableStream<Uint8Array>>) {
  const decoder = new TextDecoder();
  const started = performance.now();
  const firsts: number[] = [];
  let events = 0;
  await Promise.all(
    Array.from({ length: count }, async () => {
      const reader = (await open()).getReader();
      let first = true;
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        if (first) firsts.push(performance.now() - started);
        first = false;
        events += eventsIn(decoder.decode(next.value));
      }
    }),
  );
  return { firstByte: median(firsts), eventsPerSecond: events / ((performance.now() - started) / 1000) };
}

const oursOpen = async () => (await paced(chat('http://bench.test', newId()))).body!;
const peerOpen = async () => (await peerStream())!.pipeThrough(new TextEncoderStream());
const rows: string[][] = [];
for (const count of CONCURRENT) {
  // Interleaved: the peer first, then answer-once, then the peer again; the two peer runs' median.
  const peerA = await concurrent(count, peerOpen);
  const mine = await concurrent(count, oursOpen);
  const peerB = await concurrent(count, peerOpen);
  const peerFirst = (peerA.firstByte + peerB.firstByte) / 2;
  const peerRate = (peerA.eventsPerSecond + peerB.eventsPerSecond) / 2;
  rows.push([
    `${count.toLocaleString('en-US')} at once`,
    `${mine.firstByte.toFixed(0)} ms vs ${peerFirst.toFixed(0)} ms (${(mine.firstByte / peerFirst).toFixed(2)}×)`,
    `${mine.eventsPerSecond.toFixed(0)} vs ${peerRate.toFixed(0)} (${(mine.eventsPerSecond / peerRate).toFixed(2)}×)`,
  ]);
}
table(
  `Concurrent streamed answers (20 events × 50 ms), answer-once RedisStore vs resumable-stream, same Redis (load ${loadavg()[0]!.toFixed(1)})`,
  ['answers', 'first byte p50', 'events/s'],
  rows,
);

await store.close();
await Promise.all([client, publisher, subscriber].map((each) => each.close().catch(() => {})));
await server.stop();
