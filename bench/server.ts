/**
 * `npm run bench:server`: what the reference server costs and what long-polling buys.
 *
 * 1. Throughput of `handle(request)` in-process: the first-run path (a new intent each
 *    time) and the replay path (the same intent again), against the bare handler with
 *    no idempotency at all — medians of several rounds, and their ratio to the bare one —
 *    and the same two paths through a peer, `@node-idempotency/core` over its memory
 *    storage, driven as its own adapters drive it (onRequest → work → onResponse), so the
 *    overhead each adds over the bare handler is compared in one run.
 * 2. Latency from the work's completion to the answer reaching a waiting client, over
 *    real HTTP on loopback: long-poll (`Prefer: wait=10`) vs polling at the server's
 *    `Retry-After` (1 s) and at a tighter 250 ms.
 * 3. Requests per intent while a 5-second job runs: long-poll vs polling.
 *
 * In 2 and 3 each intent's first attempt runs the work and its response is "lost" (the
 * client gave up on it); the client's resend 20 ms later gets 202 and follows `Location`.
 */
import { Idempotency } from '@node-idempotency/core';
import { MemoryStorageAdapter } from '@node-idempotency/storage-adapter-memory';
import { createIdempotencyHandler, MemoryStore } from 'answer-once/server';
import { serve } from 'answer-once/server/node';
import { median, sleep, table } from './stats.js';

const ROUNDS = 15;
const PER_ROUND = 1_000;
const LATENCY_INTENTS = 15;
const LONG_JOB_MS = 5_000;
const LONG_JOB_INTENTS = 10;

const id = (n: number): string => `bench-${String(n).padStart(12, '0')}`;
const scope = () => ({ user: 'bench-user' });

/** The app's work: read the question, answer it. No idempotency. */
async function bare(request: Request): Promise<Response> {
  const { question } = (await request.json()) as { question: string };
  return Response.json({ answer: `echo: ${question}` });
}

/**
 * The same work behind `@node-idempotency/core` with its memory storage, the way its
 * express/fastify adapters use it: `onRequest` with the parsed body (its fingerprint),
 * a cached response replayed with its status, else the work, then `onResponse` with
 * the answer and its status.
 */
const peer = new Idempotency(new MemoryStorageAdapter() as ConstructorParameters<typeof Idempotency>[0]);
async function peerHandle(request: Request): Promise<Response> {
  const body = (await request.json()) as { question: string };
  const params = {
    method: request.method,
    path: new URL(request.url).pathname,
    headers: Object.fromEntries(request.headers),
    body,
  };
  const cached = await peer.onRequest<{ answer: string }, unknown>(params);
  if (cached) return Response.json(cached.body, { status: Number(cached.additional?.status ?? 200) });
  const answer = { answer: `echo: ${body.question}` };
  await peer.onResponse(params, { body: answer, additional: { status: 200 } });
  return Response.json(answer);
}

function chat(requestId: string): Request {
  return new Request('http://bench.test/api/chat', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId, 'Idempotency-Key': requestId },
    body: JSON.stringify({ question: 'What is the capital of France?' }),
  });
}

interface Measured {
  readonly opsPerSecond: number;
  /** CPU (user + system) per request, µs: steadier than wall time on a machine others share. */
  readonly cpuMicros: number;
}

async function opsPerSecond(run: (n: number) => Promise<Response>, offset: number): Promise<Measured> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (let n = 0; n < PER_ROUND; n += 1) await (await run(offset + n)).arrayBuffer();
  const used = process.cpuUsage(cpu);
  return {
    opsPerSecond: PER_ROUND / ((performance.now() - start) / 1000),
    cpuMicros: (used.user + used.system) / PER_ROUND,
  };
}

async function throughput(): Promise<string[][]> {
  const handle = createIdempotencyHandler({
    store: new MemoryStore({ maxEntries: (ROUNDS + 2) * PER_ROUND }),
    scope,
    handler: bare,
  });
  await handle(chat(id(-1))); // the replayed intent
  await peerHandle(chat(id(-1)));
  const results = {
    bare: [] as Measured[],
    first: [] as Measured[],
    replay: [] as Measured[],
    peerFirst: [] as Measured[],
    peerReplay: [] as Measured[],
  };
  // Each path's CPU over the bare handler is taken within its round (the bare handler runs
  // first and last in it): on a machine others share, the load drifts between rounds more
  // than within one.
  const over = { first: [] as number[], replay: [] as number[], peerFirst: [] as number[], peerReplay: [] as number[] };
  for (let round = 0; round < ROUNDS + 1; round += 1) {
    const offset = (round + 1) * PER_ROUND;
    const bareBefore = await opsPerSecond(() => bare(chat(id(0))), 0);
    const firstRound = await opsPerSecond((n) => handle(chat(id(n))), offset);
    const replayRound = await opsPerSecond(() => handle(chat(id(-1))), 0);
    const peerFirstRound = await opsPerSecond((n) => peerHandle(chat(id(n))), offset);
    const peerReplayRound = await opsPerSecond(() => peerHandle(chat(id(-1))), 0);
    const bareAfter = await opsPerSecond(() => bare(chat(id(0))), 0);
    if (round === 0) continue; // warm-up: the JIT, the maps
    const bareCpu = (bareBefore.cpuMicros + bareAfter.cpuMicros) / 2;
    results.bare.push(bareBefore, bareAfter);
    results.first.push(firstRound);
    results.replay.push(replayRound);
    results.peerFirst.push(peerFirstRound);
    results.peerReplay.push(peerReplayRound);
    over.first.push(firstRound.cpuMicros - bareCpu);
    over.replay.push(replayRound.cpuMicros - bareCpu);
    over.peerFirst.push(peerFirstRound.cpuMicros - bareCpu);
    over.peerReplay.push(peerReplayRound.cpuMicros - bareCpu);
  }
  const ops = (values: Measured[]) => median(values.map((value) => value.opsPerSecond));
  const cpu = (values: Measured[]) => median(values.map((value) => value.cpuMicros));
  const base = ops(results.bare);
  const overhead = (values: Measured[]) => 1e6 / ops(values) - 1e6 / base;
  const row = (name: string, values: Measured[], cpuOver?: number[], peerOver?: number[]) => [
    name,
    `${Math.round(ops(values)).toLocaleString('en-US')} req/s`,
    `${(ops(values) / base).toFixed(2)}×`,
    `${(1000 / ops(values)).toFixed(3)} ms`,
    cpuOver ? `${overhead(values).toFixed(1)} µs` : '—',
    cpuOver ? `+${median(cpuOver).toFixed(1)} µs` : `${cpu(values).toFixed(1)} µs`,
    cpuOver && peerOver ? `${(median(cpuOver) / median(peerOver)).toFixed(2)}×` : '—',
  ];
  return [
    row('bare handler (no idempotency)', results.bare),
    row('first run (new intent)', results.first, over.first, over.peerFirst),
    row('replay (stored answer)', results.replay, over.replay, over.peerReplay),
    row('peer: @node-idempotency/core, first run', results.peerFirst, over.peerFirst),
    row('peer: @node-idempotency/core, replay', results.peerReplay, over.peerReplay),
  ];
}

type Strategy = { readonly name: string; readonly longPoll: boolean; readonly intervalMs?: number };

/**
 * One intent over HTTP, as a protocol client: POST, then on 202 follow `Location` with
 * long-polls or interval polls until the answer. Returns when it got the answer and how
 * many requests it took.
 */
async function intent(
  base: string,
  requestId: string,
  strategy: Strategy,
): Promise<{ answeredAt: number; requests: number }> {
  let requests = 1;
  let response = await fetch(`${base}/api/chat`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId },
    body: JSON.stringify({ question: requestId }),
  });
  for (let polls = 0; response.status === 202 && polls < 1_000; polls += 1) {
    const location = new URL(response.headers.get('Location') ?? '', base);
    await response.arrayBuffer();
    if (!strategy.longPoll) await sleep(strategy.intervalMs ?? Number(response.headers.get('Retry-After') ?? '1') * 1000);
    requests += 1;
    response = await fetch(location, { headers: strategy.longPoll ? { Prefer: 'wait=10' } : {} });
  }
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`bench: ${requestId} ended with ${response.status}`);
  return { answeredAt: performance.now(), requests };
}

/** Serves a handler whose work takes `jobMs` and records when each intent's work completed. */
async function jobServer(jobMs: () => number) {
  const completedAt = new Map<string, number>();
  const handle = createIdempotencyHandler({
    scope,
    handler: async (request, { requestId }) => {
      await request.arrayBuffer();
      await sleep(jobMs());
      completedAt.set(requestId, performance.now());
      return Response.json({ answer: 'done' });
    },
  });
  const server = await serve(handle);
  return { server, completedAt, handle };
}

async function latency(strategies: readonly Strategy[]): Promise<string[][]> {
  const rows: string[][] = [];
  for (const strategy of strategies) {
    const { server, completedAt, handle } = await jobServer(() => 300 + Math.random() * 1_400);
    const delays: number[] = [];
    await Promise.all(
      Array.from({ length: LATENCY_INTENTS }, async (_, n) => {
        const requestId = `lat-${strategy.name.replace(/\W/g, '')}-${String(n).padStart(6, '0')}`;
        const first = handle(chatFor(server.url, requestId)); // the attempt whose response the client lost
        await sleep(20);
        const { answeredAt } = await intent(server.url, requestId, strategy);
        delays.push(answeredAt - (completedAt.get(requestId) ?? Number.NaN));
        await first;
      }),
    );
    await server.close();
    rows.push([strategy.name, `${median(delays).toFixed(1)} ms`, `${Math.max(...delays).toFixed(1)} ms`]);
  }
  return rows;
}

function chatFor(base: string, requestId: string): Request {
  return new Request(`${base}/api/chat`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Request-Id': requestId },
    body: JSON.stringify({ question: requestId }),
  });
}

async function requestsPerIntent(strategies: readonly Strategy[]): Promise<string[][]> {
  const rows: string[][] = [];
  for (const strategy of strategies) {
    const { server, handle } = await jobServer(() => LONG_JOB_MS);
    const counts: number[] = [];
    await Promise.all(
      Array.from({ length: LONG_JOB_INTENTS }, async (_, n) => {
        const requestId = `long-${strategy.name.replace(/\W/g, '')}-${String(n).padStart(6, '0')}`;
        const first = handle(chatFor(server.url, requestId));
        await sleep(20);
        counts.push(1 + (await intent(server.url, requestId, strategy)).requests);
        await first;
      }),
    );
    await server.close();
    rows.push([strategy.name, String(median(counts)), String(Math.max(...counts))]);
  }
  return rows;
}

const strategies: readonly Strategy[] = [
  { name: 'long-poll (Prefer: wait=10)', longPoll: true },
  { name: 'polling at Retry-After (1 s)', longPoll: false },
  { name: 'polling every 250 ms', longPoll: false, intervalMs: 250 },
];

console.log(`answer-once server bench — Node ${process.version}, ${new Date().toISOString()}`);
table(
  `Handler throughput, in-process (median of ${ROUNDS} rounds × ${PER_ROUND} sequential requests, after one warm-up round; CPU over bare: the median of each round's difference to the bare handler run around it)`,
  [
    'path',
    'throughput',
    'vs bare',
    'per request',
    'wall overhead over bare',
    'CPU per request (over bare)',
    'CPU overhead vs peer',
  ],
  await throughput(),
);
table(
  `Answer latency after the work completes, HTTP on loopback (${LATENCY_INTENTS} intents, jobs of 0.3–1.7 s)`,
  ['strategy', 'median', 'max'],
  await latency(strategies),
);
table(
  `Requests per intent while a ${LONG_JOB_MS / 1000}-second job runs (${LONG_JOB_INTENTS} intents)`,
  ['strategy', 'median', 'max'],
  await requestsPerIntent(strategies),
);
