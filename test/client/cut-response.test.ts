/**
 * The README's headline case over a real socket: the model ran, the answer's headers
 * arrived, then the connection broke mid-body. A node:http front on 127.0.0.1 relays to
 * the reference server and cuts the first answers after `keep` bytes of their body
 * (`socket.destroy()`), so the client's resend is a real replay from the real store.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConnectionError, createClient, type SendEvent } from 'answer-once';
import { createIdempotencyHandler } from 'answer-once/server';
import { type ServedHandler, serve } from 'answer-once/server/node';
import { afterEach, describe, expect, it } from 'vitest';

const ANSWER = { answer: 'x'.repeat(2_000) };

interface Rig {
  readonly url: string;
  /** Model calls made by the reference server. */
  readonly calls: () => number;
  /** Answers cut so far. */
  readonly cuts: () => number;
  readonly close: () => Promise<void>;
}

/** The reference server behind a front that cuts the first `cutFirst` answers after `keep` body bytes. */
async function rig(keep: (length: number) => number, cutFirst: number): Promise<Rig> {
  let calls = 0;
  const origin: ServedHandler = await serve(
    createIdempotencyHandler({
      scope: () => ({ user: 'u' }),
      handler: async (request) => {
        calls += 1;
        return Response.json({ ...ANSWER, echo: await request.json() });
      },
    }),
  );
  let cuts = 0;
  const front: Server = createServer(async (incoming, outgoing) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (typeof value === 'string' && name !== 'host' && name !== 'connection') headers.set(name, value);
    }
    const upstream = await fetch(`${origin.url}${incoming.url}`, {
      method: incoming.method,
      headers,
      ...(chunks.length > 0 && { body: Buffer.concat(chunks) }),
    });
    const body = Buffer.from(await upstream.arrayBuffer());
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      out[name] = value;
    });
    out['content-length'] = String(body.length);
    delete out['content-encoding'];
    delete out['transfer-encoding'];
    outgoing.writeHead(upstream.status, out);
    if (upstream.status === 200 && cuts < cutFirst) {
      cuts += 1;
      outgoing.flushHeaders();
      const part = body.subarray(0, keep(body.length));
      // Let the headers and the part leave, then break the connection mid-body.
      outgoing.socket!.write(part, () => setTimeout(() => outgoing.socket?.destroy(), 10));
      return;
    }
    outgoing.end(body);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const { port } = front.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    calls: () => calls,
    cuts: () => cuts,
    close: async () => {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await origin.close();
    },
  };
}

let current: Rig | undefined;
afterEach(async () => {
  await current?.close();
  current = undefined;
});

describe('a 200 whose body the network cuts after the headers', () => {
  it.each([
    ['none of the body', () => 0],
    ['a few bytes of it', () => 5],
    ['all of it but the last byte', (length: number) => length - 1],
  ])('is sent again with the same ID and resolves with the stored answer when %s arrived', async (_, keep) => {
    current = await rig(keep, 1);
    const events: SendEvent[] = [];
    const client = createClient({ baseUrl: current.url, retry: { delay: 0 }, onEvent: (e) => events.push(e) });
    const result = await client.send<typeof ANSWER & { echo: unknown }>('api/chat', { json: { q: 1 } });
    expect(result.data).toEqual({ ...ANSWER, echo: { q: 1 } });
    expect(result).toMatchObject({ replayed: true, attempts: 2 });
    expect(current.cuts()).toBe(1);
    expect(current.calls()).toBe(1);
    expect(events.filter((e) => e.type === 'retry').map((e) => e.type === 'retry' && e.reason)).toEqual(['response-cut']);
  });

  it('rejects with a ConnectionError saying the connection broke once retries run out', async () => {
    current = await rig(() => 100, 10);
    const client = createClient({ baseUrl: current.url, retry: { limit: 2, delay: 0 } });
    const error = await client.send('api/chat', { json: { q: 1 } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).message).toMatch(/connection broke while the answer was arriving \(3 attempts\)/);
    expect(error).toMatchObject({ retryable: true, attempts: 3 });
    expect(current.calls()).toBe(1);
  });
});
