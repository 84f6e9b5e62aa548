/**
 * `npx tsx bench/stream-ready.ts`: the first byte of an answer whose chunks are all ready
 * (a 5,000-event SSE body the work built before returning it), in-process, MemoryStore,
 * against the bare handler in the same run. Two measures: how many of the work's chunks
 * the producer had read when the caller's first byte arrived (structural, independent of
 * the machine's load), and the time to the first byte and to the last, medians.
 */
import { createIdempotencyHandler, MemoryStore } from 'answer-once/server';
import { median, table } from './stats.js';
import { chat } from './stream-model.js';

const CHUNKS = 5_000;
const ROUNDS = Number(process.env.STREAM_BENCH_ROUNDS ?? 5) * 6;
const encoder = new TextEncoder();

/** A body of `CHUNKS` ready events; `read` counts the producer's reads. */
function readyAnswer(counter: { read: number }): Response {
  let index = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        counter.read = index += 1;
        controller.enqueue(encoder.encode(`data: token ${index} of the answer\n\n`));
        if (index === CHUNKS) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

const counter = { read: 0 };
const bare = async (): Promise<Response> => readyAnswer(counter);
const handle = createIdempotencyHandler({
  store: new MemoryStore({ maxEntries: ROUNDS * 4 }),
  scope: () => ({ user: 'bench-user' }),
  handler: bare,
});

interface Sample {
  readonly first: number;
  readonly last: number;
  readonly readAtFirst: number;
}
async function sample(run: (request: Request) => Promise<Response>, id: string): Promise<Sample> {
  counter.read = 0;
  const started = performance.now();
  const reader = (await run(chat('http://bench.test', id))).body!.getReader();
  await reader.read();
  const first = performance.now() - started;
  const readAtFirst = counter.read;
  while (!(await reader.read()).done);
  return { first, last: performance.now() - started, readAtFirst };
}

const samples = { bare: [] as Sample[], answerOnce: [] as Sample[] };
for (let round = 0; round <= ROUNDS; round += 1) {
  const bareSample = await sample(bare, '');
  const ours = await sample(handle, `bench-ready-${process.pid}-${String(round).padStart(6, '0')}`);
  if (round === 0) continue; // warm-up
  samples.bare.push(bareSample);
  samples.answerOnce.push(ours);
}
const row = (name: string, values: Sample[]) => [
  name,
  `${median(values.map((value) => value.readAtFirst))} of ${CHUNKS}`,
  `${median(values.map((value) => value.first)).toFixed(2)} ms`,
  `${median(values.map((value) => value.last)).toFixed(2)} ms`,
];
table(
  `First byte of a ${CHUNKS.toLocaleString('en-US')}-chunk answer that is all ready (load ${(await import('node:os')).loadavg()[0]!.toFixed(1)})`,
  ['handler', 'chunks read at the first byte', 'first byte, median', 'last byte, median'],
  [row('bare handler', samples.bare), row('answer-once, MemoryStore', samples.answerOnce)],
);
