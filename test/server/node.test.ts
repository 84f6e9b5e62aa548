import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { createClient } from 'answer-once';
import { createIdempotencyHandler } from 'answer-once/server';
import { serve, toNodeListener } from 'answer-once/server/node';
import { describe, expect, it } from 'vitest';
import { sleep } from '../support/sleep.js';

const echo = async (request: Request): Promise<Response> =>
  Response.json(
    { method: request.method, path: new URL(request.url).pathname, body: await request.text() },
    { status: 201, headers: { 'X-Request-Id': request.headers.get('X-Request-Id') ?? '' } },
  );

describe('serve', () => {
  it('serves a fetch handler on loopback and hands it real Requests', async () => {
    const server = await serve(echo);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: { 'X-Request-Id': 'req-12345678' },
        body: 'hello',
      });
      expect(response.status).toBe(201);
      expect(response.headers.get('X-Request-Id')).toBe('req-12345678');
      expect(await response.json()).toEqual({ method: 'POST', path: '/api/chat', body: 'hello' });
    } finally {
      await server.close();
    }
  });

  it('closes even while a long-poll is held open', async () => {
    let release: (() => void) | undefined;
    const server = await serve(() => new Promise<Response>((resolve) => (release = () => resolve(new Response('late')))));
    const held = fetch(server.url).catch((error: unknown) => error);
    await sleep(50);
    await server.close();
    expect(await held).toBeInstanceOf(Error);
    release?.();
  });

  it('names a bad option', async () => {
    await expect(serve(echo, { port: -1 })).rejects.toThrow(/`port`/);
    await expect(serve(echo, { hostname: '' })).rejects.toThrow(/`hostname`/);
  });
});

describe('toNodeListener', () => {
  it('plugs a fetch handler into http.createServer', async () => {
    const server = createServer(toNodeListener(echo));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/x`, { method: 'PUT', body: 'b' });
      expect(await response.json()).toEqual({ method: 'PUT', path: '/x', body: 'b' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('serve(createIdempotencyHandler(…))', () => {
  it('answers the real client over loopback: a run, a replay, and a long-poll across a busy intent', async () => {
    let calls = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const handle = createIdempotencyHandler({
      scope: () => ({ user: 'u' }),
      handler: async (request) => {
        calls += 1;
        await released; // the model is still generating until the second tab was told so
        return Response.json({ echo: await request.json(), call: calls });
      },
      retryAfterSeconds: 0,
    });
    const server = await serve(handle);
    try {
      // Two tabs (two clients, so they do not join in-process) send one restored intent.
      const [tab1, tab2] = [1, 2].map(() => createClient({ baseUrl: `${server.url}/`, pollWait: 5 }));
      const requestId = 'req-over-http-1';
      const first = tab1!.send('api/chat', { json: { q: 1 }, requestId });
      for (const deadline = Date.now() + 10_000; calls === 0 && Date.now() < deadline; ) {
        await sleep(1);
      }
      const second = await tab2!.send('api/chat', {
        json: { q: 1 },
        requestId,
        onEvent: (event) => {
          if (event.type === 'accepted') release(); // 202: now let the one run finish
        },
      });
      expect(second).toMatchObject({ data: { echo: { q: 1 }, call: 1 }, replayed: true, polls: 1 });
      expect(await first).toMatchObject({ data: { echo: { q: 1 }, call: 1 }, replayed: false });
      expect(calls).toBe(1);
    } finally {
      release();
      await server.close();
    }
  });

  it('replays a streamed answer with its own content type alone, and the same bytes', async () => {
    const handle = createIdempotencyHandler({
      scope: () => ({ user: 'u' }),
      handler: async () => new Response('data: a\n\ndata: b\n\n', { headers: { 'content-type': 'text/event-stream' } }),
    });
    const server = await serve(handle);
    try {
      const send = () =>
        fetch(`${server.url}/api/chat`, { method: 'POST', body: '{}', headers: { 'X-Request-Id': 'req-node-replay-1' } });
      const first = await send();
      const firstText = await first.text();
      const replay = await send();
      expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
      expect(replay.headers.get('content-type')).toBe('text/event-stream');
      expect(await replay.text()).toBe(firstText);
    } finally {
      await server.close();
    }
  });

  it('answers a client that hangs up mid-upload 400 request-body-incomplete, no server failure reported, nothing run', async () => {
    let calls = 0;
    const handle = createIdempotencyHandler({
      scope: () => ({ user: 'u' }),
      handler: async () => {
        calls += 1;
        return Response.json({ ok: true });
      },
    });
    let answered!: (outcome: Response | unknown) => void;
    const outcome = new Promise<Response | unknown>((resolve) => (answered = resolve));
    const failures: unknown[] = [];
    const observed = async (request: Request): Promise<Response> => {
      try {
        const response = await handle(request);
        answered(response.clone());
        return response;
      } catch (error) {
        answered(error);
        throw error;
      }
    };
    const server = await serve(observed, { onError: (error) => failures.push(error) });
    try {
      const { hostname, port } = new URL(server.url);
      const socket = connect(Number(port), hostname, () => {
        socket.write('POST /api/chat HTTP/1.1\r\nHost: app\r\nX-Request-Id: req-node-cut-1\r\nContent-Length: 100\r\n\r\n');
        socket.end('{"question":'); // 12 of the 100 bytes, then the client is gone
      });
      socket.on('error', () => {}); // the server may reset the half-closed socket
      const response = (await outcome) as Response;
      expect(response).toBeInstanceOf(Response);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        code: 'request-body-incomplete',
        // As many of the 12 bytes sent as the runtime handed on before the stream broke.
        detail: expect.stringMatching(
          /^answer-once: the request body broke after \d+ bytes of the 100 its Content-Length declared\.$/,
        ),
        requestId: 'req-node-cut-1',
      });
      await new Promise((resolve) => setImmediate(resolve)); // serve() would report a rejection by now
      expect(failures).toEqual([]);
      expect(calls).toBe(0);
      socket.destroy();
    } finally {
      await server.close();
    }
  });
});
