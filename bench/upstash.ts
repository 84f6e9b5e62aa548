/**
 * `npm run bench:upstash`: what an intent costs in REST requests on the HTTP-only store
 * (`UpstashStore`: what Upstash bills, one command per request), counted by a loopback
 * bridge that speaks Upstash's REST protocol in front of a throwaway redis-server, with
 * the real `@upstash/redis` client and the handler's defaults (flush window 25 ms):
 *
 * 1. a JSON answer's first run, and a replay of it;
 * 2. a streamed answer of N events, 20 ms apart, by the instance that runs it;
 * 3. an attach: a second instance (a client of its own, a bridge of its own) following
 *    that answer from its start, 200 ms into it, with the default polling
 *    (100 ms, doubling to 1 s) and with 25 ms;
 *
 * 4. a 3 MiB answer at the store: its log appended as one batch, read from its start (a
 *    replay or an attach from byte 0 while it runs), stored by `complete`, and replayed
 *    (the claim a duplicate makes, refused with the record, its answer read in pages);
 *
 * and the largest request and reply bodies the bridges saw. Counts do not depend on the machine's
 * load, except the attach's polls (a few, at the edges of the stream).
 */
import { Redis } from '@upstash/redis';
import { createIdempotencyHandler } from 'answer-once/server';
import { UpstashStore, type UpstashStoreOptions } from 'answer-once/upstash';
import { RedisServer } from '../test/support/redis-server.js';
import { UpstashBridge } from '../test/support/upstash-bridge.js';
import { median, sleep, table } from './stats.js';
import { chat, drain, model } from './stream-model.js';

const INTENTS = 10;
const EVENTS = [20, 100, 500];
const EVENT_MS = 20;

const server = await RedisServer.start();
const holderBridge = await UpstashBridge.start(server.url);
const readerBridge = await UpstashBridge.start(server.url);

const storeOf = (bridge: UpstashBridge, options: Partial<UpstashStoreOptions> = {}): UpstashStore =>
  new UpstashStore({ redis: new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false }), ...options });
const handler = (store: UpstashStore, work: () => Response) =>
  createIdempotencyHandler({ store, scope: () => ({ user: 'bench-user' }), handler: async () => work() });

let serial = 0;
const newId = (): string => `bench-upstash-${process.pid}-${String((serial += 1)).padStart(8, '0')}`;

/** REST requests `fn` cost on `bridge`. */
async function requests(bridge: UpstashBridge, fn: () => Promise<unknown>): Promise<number> {
  const before = bridge.total;
  await fn();
  return bridge.total - before;
}

const json = (): Response => Response.json({ answer: 'Paris', tokens: 42 });
const holder = handler(storeOf(holderBridge), json);
await drain(await holder(chat('http://bench', newId()))); // the scripts are cached from here on

const firsts: number[] = [];
const replays: number[] = [];
for (let index = 0; index < INTENTS; index += 1) {
  const id = newId();
  firsts.push(await requests(holderBridge, async () => drain(await holder(chat('http://bench', id)))));
  replays.push(await requests(holderBridge, async () => drain(await holder(chat('http://bench', id)))));
}
const rows: string[][] = [
  ['JSON answer, first run', median(firsts).toFixed(1), '—'],
  ['JSON answer, replay', median(replays).toFixed(1), '—'],
];

for (const events of EVENTS) {
  const streaming = handler(storeOf(holderBridge), () => model(events, EVENT_MS));
  const runs: number[] = [];
  for (let index = 0; index < 3; index += 1) {
    runs.push(await requests(holderBridge, async () => drain(await streaming(chat('http://bench', newId())))));
  }
  rows.push([
    `streamed answer, ${events} events × ${EVENT_MS} ms, first run`,
    median(runs).toFixed(1),
    (median(runs) / events).toFixed(2),
  ]);
}

for (const [label, options] of [
  ['default polling (100 ms → 1 s)', {}],
  ['pollIntervalMs 25, maxPollIntervalMs 25', { pollIntervalMs: 25, maxPollIntervalMs: 25 }],
] as const) {
  const events = 100;
  const streaming = handler(storeOf(holderBridge), () => model(events, EVENT_MS));
  const attacher = handler(storeOf(readerBridge, options), json);
  const costs: number[] = [];
  for (let index = 0; index < 3; index += 1) {
    const id = newId();
    const first = await streaming(chat('http://bench', id));
    await sleep(200); // mid-stream, its first batches in the log
    costs.push(
      await requests(readerBridge, async () => {
        const attached = await attacher(chat('http://bench', id));
        if (attached.headers.get('x-idempotent-attached') !== 'true') throw new Error(`no attach: ${attached.status}`);
        return drain(attached);
      }),
    );
    await drain(first);
  }
  rows.push([
    `attach to a ${events}-event answer (2 s), ${label}`,
    median(costs).toFixed(1),
    (median(costs) / events).toFixed(2),
  ]);
}

const MIB = 1024 * 1024;
const large = storeOf(holderBridge);
const largeKey = `answer-once:{bench:${newId()}}`;
const claim = await large.acquire(largeKey, 'fp', 60_000);
if (!claim.acquired) throw new Error('expected a claim');
const line = 'data: {"type":"text-delta","delta":"lorem ipsum "}\n\n';
const sse = new TextEncoder().encode(line.repeat(Math.ceil((3 * MIB) / line.length))).subarray(0, 3 * MIB);
const batch = { offset: 0, data: sse, head: '{"status":200}' };
rows.push([
  '3 MiB log, appended as one batch',
  String(await requests(holderBridge, () => large.append(largeKey, claim.token, batch))),
  '—',
]);
rows.push(['3 MiB log, read from its start', String(await requests(holderBridge, () => large.read(largeKey, null))), '—']);
const result = JSON.stringify({ answer: 'lorem ipsum '.repeat((3 * MIB) / 12) });
rows.push([
  '3 MiB JSON answer, complete',
  String(await requests(holderBridge, () => large.complete(largeKey, claim.token, result, 60_000))),
  '—',
]);
rows.push([
  '3 MiB JSON answer, replay',
  String(await requests(holderBridge, () => large.acquire(largeKey, 'fp', 60_000))),
  '—',
]);

table(
  `REST requests per intent, UpstashStore (median of ${INTENTS} JSON intents, 3 streamed)`,
  ['intent', 'REST requests', 'per event'],
  rows,
);
const bytes = (n: number): string => n.toLocaleString('en-US');
console.log(
  `\nLargest request body: ${bytes(Math.max(holderBridge.largestRequest, readerBridge.largestRequest))} bytes; ` +
    `largest reply body: ${bytes(Math.max(holderBridge.largestReply, readerBridge.largestReply))} bytes.`,
);

await Promise.all([holderBridge.stop(), readerBridge.stop()]);
await server.stop();
