/**
 * A node:http front on 127.0.0.1 that relays every request to an origin and streams
 * the answer back as it arrives, destroying the socket of chosen answers mid-body: the
 * n-th answer with a body (counted across connections) is cut after `cuts[n]` SSE
 * events (blank lines) — or bytes, for other bodies — for real (`socket.destroy()`),
 * after what was written has left. What a user's network does to a streamed answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CuttingFront {
  readonly url: string;
  /** Requests relayed, with the position headers each carried. */
  readonly requests: { method: string; path: string; lastEventId?: string; range?: string }[];
  /** Answers cut so far. */
  cuts(): number;
  close(): Promise<void>;
}

const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

export async function startCuttingFront(origin: string, cuts: readonly (number | undefined)[]): Promise<CuttingFront> {
  let answered = 0;
  let cut = 0;
  const requests: CuttingFront['requests'] = [];
  const front: Server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (typeof value === 'string' && !HOP.has(name)) headers.set(name, value);
    }
    requests.push({
      method: incoming.method ?? 'GET',
      path: incoming.url ?? '/',
      ...(typeof incoming.headers['last-event-id'] === 'string' && { lastEventId: incoming.headers['last-event-id'] }),
      ...(typeof incoming.headers.range === 'string' && { range: incoming.headers.range }),
    });
    let upstream: Response;
    try {
      upstream = await fetch(`${origin}${incoming.url}`, {
        method: incoming.method,
        headers,
        ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
      });
    } catch {
      outgoing.socket?.destroy();
      return;
    }
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!HOP.has(name) && name !== 'content-encoding') out[name] = value;
    });
    outgoing.writeHead(upstream.status, out);
    outgoing.flushHeaders();
    if (!upstream.body) return void outgoing.end();
    const limit = cuts[answered++];
    const events = (upstream.headers.get('content-type') ?? '').includes('text/event-stream');
    let seen = 0;
    let last = 0;
    const reader = upstream.body.getReader();
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done || !value) break;
      let send = Buffer.from(value);
      if (limit !== undefined) {
        let end = -1;
        for (let i = 0; i < send.length; i++) {
          if (events) {
            const byte = send[i]!;
            if (byte === 10 && last === 10) seen += 1;
            last = byte;
          } else seen += 1;
          if (seen >= limit) {
            end = i + 1;
            break;
          }
        }
        if (end !== -1) {
          cut += 1;
          send = send.subarray(0, end);
          await new Promise<void>((resolve) => outgoing.write(send, () => resolve()));
          outgoing.socket?.destroy();
          void reader.cancel().catch(() => undefined);
          return;
        }
      }
      outgoing.write(send);
    }
    outgoing.end();
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const { port } = front.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    cuts: () => cut,
    async close() {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    },
  };
}
