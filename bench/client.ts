/**
 * Client overhead and size. Run: `npm run bench:client`.
 *
 * 1. Median wall time per sequential send against a loopback node:http server, for
 *    plain `ky.post` (the baseline) and `client.send`, measured in the same process,
 *    interleaved in rounds so drift hits every row alike. Goal: client ≤ 1.05× ky.
 *    The client measured is the BUILT code: `src/index.ts` bundled by esbuild as the
 *    package ships it (ESM, ES2022, unminified, ky and ulid external — the same ky
 *    module the baseline uses), not the TypeScript sources as tsx transforms them.
 * 2. Streamed answers (./client-stream.ts): `client.fetch` vs `fetch` per 1,000-event
 *    stream, and a mid-stream reconnect's added latency. Goal: ≤ 1.1× fetch.
 * 3. The client entry's size, minified and gzipped, with ky and ulid external (they are
 *    dependencies a user already has or shares). Goal: ≤ 4 kB.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import ky from 'ky';
import { streamingRows } from './client-stream.js';

const ENTRY = new URL('../src/index.ts', import.meta.url).pathname;
/** Inside the package (git-ignored), so the bundle's `ky` import resolves to node_modules. */
const BUILT = new URL('../.tmp/bench/answer-once.mjs', import.meta.url).pathname;

/** Bundles the client entry as the package ships it and imports that bundle. */
async function importBuilt(): Promise<typeof import('answer-once')> {
  mkdirSync(new URL('.', pathToFileURL(BUILT)), { recursive: true });
  await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    external: ['ky', 'ulid'],
    outfile: BUILT,
    logLevel: 'warning',
  });
  return (await import(pathToFileURL(BUILT).href)) as typeof import('answer-once');
}

const { createClient, memoryStorageAdapter, newRequestId, streaming } = await importBuilt();

const WARMUP = 300;
const ROUNDS = 20;
const PER_ROUND = 200;

function handle(request: IncomingMessage, response: ServerResponse): void {
  let size = 0;
  request.on('data', (chunk: Buffer) => (size += chunk.length));
  request.on('end', () => {
    const body = JSON.stringify({ reply: 'ok', received: size, id: request.headers['x-request-id'] ?? null });
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

async function main(): Promise<void> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const body = { sessionId: 'bench', content: 'What is the capital of France?' };

  const plain = ky.create({ baseUrl: origin });
  const client = createClient({ baseUrl: origin });
  const stored = createClient({ baseUrl: origin, storage: memoryStorageAdapter() });
  let given = 0;
  const rows: [string, () => Promise<unknown>][] = [
    ['ky.post (baseline)', () => plain.post('chat', { json: body }).json()],
    ['client.send', () => client.send('chat', { json: body })],
    // The same send with the ID supplied: the client's own cost, without minting a ULID.
    [
      'client.send, requestId given (no ULID minted)',
      () => client.send('chat', { json: body, requestId: `bench-intent-${given++}` }),
    ],
    ['client.send + memory storage', () => stored.send('chat', { json: body })],
  ];

  try {
    for (const [, run] of rows) for (let i = 0; i < WARMUP; i++) await run();
    const samples = new Map<string, number[]>(rows.map(([name]) => [name, []]));
    // Per round, each row's median over the baseline's: robust to load that drifts over time.
    const roundRatios = new Map<string, number[]>(rows.map(([name]) => [name, []]));
    // Process CPU time (client and server alike) per send: steadier than wall time on a busy box.
    const cpu = new Map<string, number>(rows.map(([name]) => [name, 0]));
    for (let round = 0; round < ROUNDS; round++) {
      const roundMedians: number[] = [];
      for (const [name, run] of rows) {
        const times: number[] = [];
        const cpuStart = process.cpuUsage();
        for (let i = 0; i < PER_ROUND; i++) {
          const start = performance.now();
          await run();
          times.push(performance.now() - start);
        }
        const used = process.cpuUsage(cpuStart);
        cpu.set(name, cpu.get(name)! + used.user + used.system);
        samples.get(name)!.push(...times);
        roundMedians.push(median(times));
      }
      rows.forEach(([name], i) => {
        roundRatios.get(name)!.push(roundMedians[i]! / roundMedians[0]!);
      });
    }
    const baseline = median(samples.get(rows[0]![0])!);
    console.log(
      `\nMedian time per send, ${ROUNDS * PER_ROUND} sequential sends each, loopback node:http, Node ${process.version}`,
    );
    console.log('client: the built bundle (esbuild of src/index.ts: ESM, ES2022, unminified; ky and ulid external)\n');
    console.log(
      '| send | median (µs) | p95 (µs) | vs ky.post | median of per-round ratios | CPU per send (µs) | CPU vs ky.post |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    const cpuBaseline = cpu.get(rows[0]![0])!;
    for (const [name] of rows) {
      const times = samples.get(name)!;
      const m = median(times);
      console.log(
        `| ${name} | ${(m * 1000).toFixed(0)} | ${(percentile(times, 0.95) * 1000).toFixed(0)} | ${(m / baseline).toFixed(3)}× | ${median(roundRatios.get(name)!).toFixed(3)}× | ${(cpu.get(name)! / (ROUNDS * PER_ROUND)).toFixed(0)} | ${(cpu.get(name)! / cpuBaseline).toFixed(3)}× |`,
      );
    }
    const mint: number[] = [];
    for (let i = 0; i < 2_000; i++) {
      const start = performance.now();
      newRequestId();
      mint.push(performance.now() - start);
    }
    console.log(`\nnewRequestId() alone: median ${(median(mint) * 1000).toFixed(1)} µs per ID (src/core/ids.ts → ulid())`);
    await streamingRows(
      () => createClient({ streaming }),
      (input, init) => ky(input, init),
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  console.log('\nClient entry size (esbuild --minify, ESM, ES2022, ky and ulid external, gzip -9)\n');
  console.log('| what an app bundles | minified | min+gzip | goal |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [label, size, goal] of await sizes()) {
    console.log(`| ${label} | ${(size.min / 1024).toFixed(2)} kB | ${(size.gzip / 1024).toFixed(2)} kB | ${goal} |`);
  }
}

const CLIENT_EXPORTS = [
  'createClient',
  'AnswerOnceError',
  'AbortError',
  'ConnectionError',
  'DeadlineExceededError',
  'IntentFailedError',
  'RequestIdReusedError',
  'ResponseError',
  'UnreplayableBodyError',
  'memoryStorageAdapter',
  'localStorageAdapter',
  'sessionStorageAdapter',
  'webStorageAdapter',
  'newRequestId',
  'isValidRequestId',
];

/** Bundles a module re-exporting `names` from the entry (all of it when `*`). */
async function bundleSize(names: string[] | '*'): Promise<{ min: number; gzip: number }> {
  const contents = names === '*' ? `export * from '${ENTRY}';` : `export { ${names.join(', ')} } from '${ENTRY}';`;
  const result = await build({
    stdin: { contents, loader: 'ts', resolveDir: process.cwd() },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    external: ['ky', 'ulid'],
    write: false,
  });
  const code = result.outputFiles[0]!.contents;
  return { min: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

/** Each row: what an app imports, its size, and the goal it is held to. */
async function sizes(): Promise<[string, { min: number; gzip: number }, string][]> {
  return [
    ['the whole entry (with the send controller)', await bundleSize('*'), '—'],
    ['the client: createClient, errors, storage adapters', await bundleSize(CLIENT_EXPORTS), '—'],
    ['createClient + streaming (client.fetch, client.stream)', await bundleSize(['createClient', 'streaming']), '—'],
    ['createClient alone (JSON sends)', await bundleSize(['createClient']), '≤ 6.00 kB'],
  ];
}

await main();
