/**
 * Streaming rows of `npm run bench:client` (the same run, the same built client):
 * `client.fetch` against plain `fetch` reading one 1,000-event answer-once event stream
 * from a loopback node:http server, one event per write (as the server writes them;
 * `EVENTS_PER_CHUNK` changes it) — time to the first byte, wall time and process CPU
 * per whole stream (goal: ≤ 1.1× fetch) — and the latency a mid-stream reconnect adds
 * (the socket destroyed after half the events; the reconnect resumes by Last-Event-ID).
 * A `ky` row (the same request through ky alone, ky's defaults) shows the floor the
 * client starts from: every intent is one ky call.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const EVENTS = 1_000;
/** Events per write: 1 by default, as the server writes them (each event is its own chunk). */
const PER_CHUNK = Number(process.env.EVENTS_PER_CHUNK ?? 1);
const GENERATION = 1_764_581_234_567;
const ROUNDS = 10;
const PER_ROUND = 20;

/** § 14.4's framing: the id is the offset just after the event, its own length counted. */
function frame(data: string, start: number): string {
  const fields = `data: ${data}\n`;
  const fixed = start + Buffer.byteLength(fields) + `id: ${GENERATION}.`.length + 2;
  let end = fixed + String(fixed).length;
  while (end - fixed !== String(end).length) end = fixed + String(end).length;
  return `${fields}id: ${GENERATION}.${end}\n\n`;
}

const UNITS: Buffer[] = [];
/** The offset just after each event. */
const OFFSETS: number[] = [];
for (let i = 0, offset = 0; i < EVENTS; i++) {
  const unit = Buffer.from(frame(JSON.stringify({ type: 'text-delta', id: 't1', delta: `token ${i} ` }), offset));
  UNITS.push(unit);
  offset += unit.length;
  OFFSETS.push(offset);
}

/** Writes the events `PER_CHUNK` at a time; `/cut` destroys the first answer's socket after half of them. */
function handle(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  request.on('end', () => {
    const last = /^\d+\.(\d+)$/.exec(String(request.headers['last-event-id'] ?? ''));
    const from = last ? OFFSETS.indexOf(Number(last[1])) + 1 : 0;
    const cut = request.url === '/cut' && !last;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'x-idempotent-generation': String(GENERATION) });
    let index = from;
    const step = () => {
      const end = Math.min(index + PER_CHUNK, EVENTS);
      const chunk = Buffer.concat(UNITS.slice(index, end));
      index = end;
      if (cut && index >= EVENTS / 2) return void response.write(chunk, () => request.socket.destroy());
      if (index >= EVENTS) return void response.end(chunk);
      response.write(chunk, () => setImmediate(step));
    };
    step();
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** Wall time to the first chunk and to the end, in ms. */
async function readStream(fetch: Fetch, url: string): Promise<{ first: number; total: number; bytes: number }> {
  const start = performance.now();
  const response = await fetch(url, { method: 'POST', body: '{"q":"hi"}', headers: { 'content-type': 'application/json' } });
  const reader = response.body!.getReader();
  let first = 0;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (bytes === 0) first = performance.now() - start;
    bytes += value.byteLength;
  }
  return { first, total: performance.now() - start, bytes };
}

export async function streamingRows(streamingClient: () => { fetch: Fetch }, ky: Fetch): Promise<void> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = streamingClient();
  const plain: Fetch = (input, init) => fetch(input, init);
  const rows: [string, Fetch, string][] = [
    ['fetch (baseline)', plain, `${origin}/chat`],
    ['ky (the same request, ky alone)', ky, `${origin}/chat`],
    ['client.fetch', client.fetch, `${origin}/chat`],
    ['client.fetch, socket cut at event 500', client.fetch, `${origin}/cut`],
  ];
  try {
    const expected = OFFSETS.at(-1)!;
    for (const [, run, url] of rows) for (let i = 0; i < 10; i++) await readStream(run, url);
    const firsts = new Map<string, number[]>(rows.map(([name]) => [name, []]));
    const totals = new Map<string, number[]>(rows.map(([name]) => [name, []]));
    const cpu = new Map<string, number>(rows.map(([name]) => [name, 0]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run, url] of rows) {
        const started = process.cpuUsage();
        for (let i = 0; i < PER_ROUND; i++) {
          const { first, total, bytes } = await readStream(run, url);
          if (bytes !== expected) throw new Error(`${name}: read ${bytes} bytes of ${expected}`);
          firsts.get(name)!.push(first);
          totals.get(name)!.push(total);
        }
        const used = process.cpuUsage(started);
        cpu.set(name, cpu.get(name)! + used.user + used.system);
      }
    }
    const n = ROUNDS * PER_ROUND;
    const base = rows[0]![0];
    console.log(
      `\nStreamed answers: one ${EVENTS.toLocaleString('en-US')}-event answer-once event stream (${(expected / 1024).toFixed(0)} KiB) per request, ${n} each, loopback node:http\n`,
    );
    console.log(
      '| read | first byte, median (ms) | whole stream, median (ms) | vs fetch | CPU per stream (ms) | CPU vs fetch |',
    );
    console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const [name] of rows) {
      const total = median(totals.get(name)!);
      console.log(
        `| ${name} | ${median(firsts.get(name)!).toFixed(2)} | ${total.toFixed(2)} | ${(total / median(totals.get(base)!)).toFixed(2)}× | ${(cpu.get(name)! / n / 1000).toFixed(2)} | ${(cpu.get(name)! / cpu.get(base)!).toFixed(2)}× |`,
      );
    }
    const added = median(totals.get(rows[3]![0])!) - median(totals.get(rows[2]![0])!);
    console.log(
      `\nA mid-stream reconnect (cut → resend with Last-Event-ID → the rest) adds ${added.toFixed(2)} ms (median) to the stream.`,
    );
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
