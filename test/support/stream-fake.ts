/**
 * A small, protocol-faithful fake of a streaming answer-once server (PROTOCOL.md § 14),
 * on a real socket on 127.0.0.1, for client specs: one model run per intent ID, each
 * answer a log of units (SSE events framed with `<g>.<N>` ids, or text chunks), readers
 * that attach live or replay from `Last-Event-ID` / `Range`, restart / error / stop
 * markers, the stop route — and cuts that really destroy the socket after k units. It is
 * NOT the reference server; it lets the client be specified on its own.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface StreamFakeOptions {
  /** What the model writes, one unit each (an SSE event's data, or a text chunk). */
  readonly tokens: readonly string[];
  /** `sse`: `text/event-stream` with positions; `text`: `text/plain`, resumed by Range. */
  readonly kind?: 'sse' | 'text';
  /** Milliseconds between the model's units. @default 5 */
  readonly intervalMs?: number;
  /** Response n (0-based, every route) has its socket destroyed after `cuts[n]` units. */
  readonly cuts?: readonly (number | undefined)[];
  /** The first generation's producer dies after this many units; a successor restarts it. */
  readonly dieAfter?: number;
  /** The first generation's model stream breaks after this many units (error marker, `failed`). */
  readonly failAfter?: number;
}

interface Generation {
  readonly number: number;
  readonly units: Buffer[];
  length: number;
  done: boolean;
  stopped: boolean;
  failed: boolean;
  readonly waiters: Set<() => void>;
}

interface Intent {
  current: Generation;
  runs: number;
  stopRequested: boolean;
}

const enc = (text: string) => Buffer.from(text, 'utf8');

/** § 14.4's framing: the id is the offset just after the event, its own length counted. */
function frame(data: string, generation: number, start: number, event?: string): Buffer {
  let fields = event ? `event: ${event}\n` : '';
  for (const line of data.split('\n')) fields += `data: ${line}\n`;
  const fixed = start + Buffer.byteLength(fields) + `id: ${generation}.`.length + 2;
  let end = fixed + String(fixed).length;
  while (end - fixed !== String(end).length) end = fixed + String(end).length;
  return enc(`${fields}id: ${generation}.${end}\n\n`);
}

export async function startStreamFake(options: StreamFakeOptions) {
  const { tokens, kind = 'sse', intervalMs = 5, cuts = [], dieAfter, failAfter } = options;
  const intents = new Map<string, Intent>();
  const stats = { modelCalls: 0, requests: 0, requestHeaders: [] as Record<string, string | undefined>[] };
  let generationClock = 1_764_581_234_000;
  let responses = 0;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();

  const wake = (generation: Generation) => {
    for (const waiter of generation.waiters) waiter();
  };

  function produce(intent: Intent, first: boolean) {
    stats.modelCalls += 1;
    intent.runs += 1;
    const generation: Generation = {
      number: (generationClock += 1000),
      units: [],
      length: 0,
      done: false,
      stopped: false,
      failed: false,
      waiters: new Set(),
    };
    intent.current = generation;
    let index = 0;
    const push = (unit: Buffer) => {
      generation.units.push(unit);
      generation.length += unit.byteLength;
    };
    const step = () => {
      if (intent.current !== generation) return;
      if (intent.stopRequested) {
        if (kind === 'sse') push(frame('{}', generation.number, generation.length, 'answer-once.stopped'));
        generation.stopped = true;
        generation.done = true;
        return wake(generation);
      }
      if (first && dieAfter !== undefined && index === dieAfter) {
        // The producer died; a successor takes over and runs the work again.
        produce(intent, false);
        return wake(generation);
      }
      if (first && failAfter !== undefined && index === failAfter) {
        generation.failed = true;
        generation.done = true;
        return wake(generation);
      }
      if (index === tokens.length) {
        generation.done = true;
        return wake(generation);
      }
      const token = tokens[index++]!;
      push(kind === 'sse' ? frame(token, generation.number, generation.length) : enc(token));
      wake(generation);
      const timer = setTimeout(() => {
        timers.delete(timer);
        step();
      }, intervalMs);
      timers.add(timer);
    };
    step();
    return generation;
  }

  /** The position the request names, per § 14.5 (Range wins). */
  function positionOf(
    req: IncomingMessage,
  ): { generation: number | undefined; offset: number; by: 'id' | 'range' } | undefined {
    const range = /^bytes=(\d+)-$/.exec(String(req.headers.range ?? ''));
    if (range)
      return {
        generation: Number(req.headers['x-idempotent-generation']) || undefined,
        offset: Number(range[1]),
        by: 'range',
      };
    const id = /^(\d+)\.(\d+)$/.exec(String(req.headers['last-event-id'] ?? ''));
    return id ? { generation: Number(id[1]), offset: Number(id[2]), by: 'id' } : undefined;
  }

  async function answer(req: IncomingMessage, res: ServerResponse, intent: Intent, fresh: boolean) {
    const cutAfter = cuts[responses++];
    let written = 0;
    const position = positionOf(req);
    let generation = intent.current;
    const restarted =
      position !== undefined && position.generation !== undefined && position.generation !== generation.number;
    let offset =
      position && !restarted && (position.generation === generation.number || position.generation === undefined)
        ? position.offset
        : 0;
    if (position?.by === 'id' && !restarted && offset === generation.length && generation.done) {
      res.writeHead(204, { 'x-idempotent-generation': String(generation.number) });
      return res.end();
    }
    const headers: Record<string, string> = {
      'content-type': kind === 'sse' ? 'text/event-stream' : 'text/plain; charset=utf-8',
      'x-idempotent-generation': String(generation.number),
      'cache-control': 'no-store',
    };
    if (!fresh) headers[generation.done ? 'x-idempotent-replayed' : 'x-idempotent-attached'] = 'true';
    if (restarted) headers['x-idempotent-restarted'] = 'true';
    if (generation.stopped) headers['x-idempotent-stopped'] = 'true';
    const ranged = position?.by === 'range' && !restarted && offset > 0;
    res.writeHead(
      ranged ? 206 : 200,
      ranged ? { ...headers, 'content-range': `bytes ${offset}-9007199254740991/*` } : headers,
    );
    if (restarted && kind === 'sse') {
      res.write(`event: answer-once.restart\ndata: {"generation":${generation.number}}\nid: ${generation.number}.0\n\n`);
    }
    for (;;) {
      // Write what the log has past `offset`, unit by unit (cutting where told).
      let at = 0;
      for (const unit of generation.units) {
        const end = at + unit.byteLength;
        if (end > offset) {
          const flushed = new Promise<void>((resolve) =>
            res.write(unit.subarray(Math.max(0, offset - at)), () => resolve()),
          );
          offset = end;
          written += 1;
          if (cutAfter !== undefined && written >= cutAfter) {
            // What was written reaches the client; then the socket dies, no clean end.
            await flushed;
            req.socket.destroy();
            return;
          }
        }
        at = end;
      }
      if (intent.current !== generation) {
        // A successor took over: the restart marker, then the new generation from 0.
        generation = intent.current;
        offset = 0;
        if (kind !== 'sse') return req.socket.destroy();
        res.write(`event: answer-once.restart\ndata: {"generation":${generation.number}}\nid: ${generation.number}.0\n\n`);
        continue;
      }
      if (generation.done) {
        if (generation.failed) {
          if (kind !== 'sse') return req.socket.destroy();
          res.write('event: answer-once.error\ndata: {"code":"intent-failed","status":502}\n\n');
        }
        return res.end();
      }
      await new Promise<void>((resolve) => {
        const waiter = () => {
          generation.waiters.delete(waiter);
          resolve();
        };
        generation.waiters.add(waiter);
      });
    }
  }

  const server = createServer((req, res) => {
    stats.requests += 1;
    stats.requestHeaders.push({
      'last-event-id': req.headers['last-event-id'] as string | undefined,
      range: req.headers.range,
      'x-idempotent-generation': req.headers['x-idempotent-generation'] as string | undefined,
    });
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    req.resume();
    req.on('end', () => {
      const stop = /^\/status\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'DELETE' && stop) {
        const intent = intents.get(stop[1]!);
        if (!intent) return void res.writeHead(404).end();
        intent.stopRequested = true;
        res.writeHead(202, { 'content-type': 'application/json' });
        return void res.end(JSON.stringify({ requestId: stop[1], state: 'stopping' }));
      }
      const id = String(req.headers['x-request-id'] ?? '');
      if (!id) return void res.writeHead(400).end();
      let intent = intents.get(id);
      let fresh = false;
      if (!intent) {
        intent = { current: undefined as never, runs: 0, stopRequested: false };
        intents.set(id, intent);
        produce(intent, true);
        fresh = true;
      } else if (intent.current.failed) {
        produce(intent, false); // a resend of a failed intent runs it again (§ 7.1)
        fresh = true;
      }
      void answer(req, res, intent, fresh);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    stats,
    intents,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The answer body generation `generation` of `tokens` has, byte for byte (§ 14.4). */
export function eventStreamOf(tokens: readonly string[], generation: number): string {
  let body = '';
  for (const token of tokens) body += frame(token, generation, Buffer.byteLength(body)).toString('utf8');
  return body;
}
