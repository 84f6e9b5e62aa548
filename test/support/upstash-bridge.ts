/**
 * Upstash's REST API on loopback, in front of a real `redis-server`, so the real
 * `@upstash/redis` client runs against real Redis in tests and benches:
 *
 * - `POST /` a command as a JSON array (`["SET","k","v"]`), `POST /pipeline` an array of
 *   them, `POST /multi-exec` an array run as one MULTI/EXEC transaction;
 * - `Authorization: Bearer <token>` on every request, else 401 `{ "error": "Unauthorized" }`;
 * - replies `{ "result": … }` (200) or `{ "error": "<Redis's error>" }` (400); a pipeline's
 *   and a transaction's are an array of those (200);
 * - with `Upstash-Encoding: base64` (what the client sends by default) every bulk string
 *   of a result is base64 of its bytes; simple strings (`OK`) and integers stay as they are.
 *
 * Every request is counted (`calls`, per path): what a store costs on Upstash's bill; each
 * answered request's body size and its reply's are recorded (`exchanges`), the largest of
 * each kept (`largestRequest`, `largestReply`).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'redis';

type Reply = string | number | bigint | null | Buffer | Reply[];
type Outcome = { result: unknown } | { error: string };

/** node-redis decoding blob strings as Buffers (RESP_TYPES.BLOB_STRING is 36): the bytes as stored. */
const BUFFERS = { 36: Buffer } as const;

/** A reply as the REST API writes it: bulk strings base64 (or UTF-8 text without the header). */
function toJson(reply: Reply, base64: boolean): unknown {
  if (Buffer.isBuffer(reply)) return base64 ? reply.toString('base64') : reply.toString('utf8');
  if (Array.isArray(reply)) return reply.map((item) => toJson(item, base64));
  if (typeof reply === 'bigint') return Number(reply);
  return reply;
}

function isCommand(value: unknown): value is (string | number | boolean)[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((part) => typeof part === 'string' || typeof part === 'number' || typeof part === 'boolean')
  );
}

/** The request's body as sent: its size in bytes, and its JSON. */
async function body(request: IncomingMessage): Promise<{ size: number; payload: unknown }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const bytes = Buffer.concat(chunks);
  return { size: bytes.byteLength, payload: JSON.parse(bytes.toString('utf8')) as unknown };
}

/** Writes the reply; answers its body's size in bytes. */
function write(response: ServerResponse, status: number, payload: unknown): number {
  const text = Buffer.from(JSON.stringify(payload), 'utf8');
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': text.byteLength }).end(text);
  return text.byteLength;
}

/** One answered REST request: its body's size and its reply's, in bytes. */
export interface Exchange {
  readonly request: number;
  readonly reply: number;
}

export class UpstashBridge {
  /** REST requests answered, per path (`/`, `/pipeline`, `/multi-exec`), refused ones left out. */
  readonly calls = new Map<string, number>();
  /** Every request answered since the start (or the last `reset()`), in order of their replies. */
  readonly exchanges: Exchange[] = [];
  /** The largest request body seen, in bytes. */
  largestRequest = 0;
  /** The largest reply body sent, in bytes. */
  largestReply = 0;
  readonly token = randomUUID();

  private constructor(
    readonly url: string,
    private readonly server: Server,
    private readonly redis: { close(): Promise<void> },
  ) {}

  /** A bridge on a free loopback port to the Redis at `redisUrl`. */
  static async start(redisUrl: string): Promise<UpstashBridge> {
    const client = await createClient({ url: redisUrl })
      .on('error', () => {})
      .connect();
    const redis = client.withTypeMapping(BUFFERS);
    const run = async (command: (string | number | boolean)[]): Promise<Outcome> => {
      try {
        return { result: (await redis.sendCommand(command.map(String))) as Reply };
      } catch (error) {
        return { error: error instanceof Error ? error.message : String(error) };
      }
    };
    let bridge: UpstashBridge | undefined;
    const send = (response: ServerResponse, status: number, payload: unknown, request?: number): void => {
      const size = write(response, status, payload);
      if (!bridge) return;
      bridge.largestReply = Math.max(bridge.largestReply, size);
      if (request !== undefined) bridge.exchanges.push({ request, reply: size });
    };
    const server = createServer((request, response) => {
      void (async () => {
        if (!bridge) return send(response, 503, { error: 'starting' });
        if (request.method !== 'POST' || request.headers.authorization !== `Bearer ${bridge.token}`) {
          return send(response, 401, { error: 'Unauthorized' });
        }
        const path = new URL(request.url ?? '/', 'http://bridge').pathname;
        bridge.calls.set(path, (bridge.calls.get(path) ?? 0) + 1);
        const base64 = request.headers['upstash-encoding'] === 'base64';
        const encode = (outcome: Outcome): Outcome =>
          'result' in outcome ? { result: toJson(outcome.result as Reply, base64) } : outcome;
        const { size, payload } = await body(request);
        bridge.largestRequest = Math.max(bridge.largestRequest, size);
        const answer = (status: number, reply: unknown): void => send(response, status, reply, size);
        if (path === '/') {
          if (!isCommand(payload)) return answer(400, { error: 'ERR expected a command as a JSON array' });
          const outcome = await run(payload);
          return answer('error' in outcome ? 400 : 200, encode(outcome));
        }
        if ((path === '/pipeline' || path === '/multi-exec') && Array.isArray(payload) && payload.every(isCommand)) {
          if (path === '/pipeline') return answer(200, (await Promise.all(payload.map(run))).map(encode));
          const multi = redis.multi();
          for (const command of payload) multi.addCommand(command.map(String));
          try {
            const replies = (await multi.exec()) as unknown as Reply[];
            return answer(
              200,
              replies.map((result) => encode({ result })),
            );
          } catch (error) {
            return answer(400, { error: error instanceof Error ? error.message : String(error) });
          }
        }
        return answer(400, { error: `ERR unknown path ${path}` });
      })().catch((error: unknown) => send(response, 500, { error: String(error) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    bridge = new UpstashBridge(`http://127.0.0.1:${port}`, server, client);
    return bridge;
  }

  /** REST requests answered since the bridge started (or the last `reset()`). */
  get total(): number {
    let sum = 0;
    for (const count of this.calls.values()) sum += count;
    return sum;
  }

  reset(): void {
    this.calls.clear();
    this.exchanges.length = 0;
    this.largestRequest = 0;
    this.largestReply = 0;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await this.redis.close();
  }
}
