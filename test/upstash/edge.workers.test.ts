/**
 * On the real Workers runtime (workerd, through miniflare), with the HTTP-only store: a
 * chat worker over `UpstashStore` (`@upstash/redis/cloudflare`, through Upstash's REST
 * protocol on a loopback bridge to a real `redis-server`) handing its work to
 * `ctx.waitUntil`. A client that leaves mid-stream costs nothing: the answer completes,
 * other tabs attach to it while it streams, a resend replays it whole — one model call.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisServer, requireRedisServer } from '../support/redis-server.js';
import { startSseModel } from '../support/sse-model-server.js';
import { parseEvents, readEvents, tokens } from '../support/stream-support.js';
import { UpstashBridge } from '../support/upstash-bridge.js';
import { bundleWorker, orSkip, startWorker } from '../support/workerd.js';

const TOKENS = 24;
const TOKEN_MS = 40;
const ALL = Array.from({ length: TOKENS }, (_, index) => `token ${index}`);

const hasRedis = requireRedisServer();
const model = await startSseModel(TOKENS, TOKEN_MS);
const redis = hasRedis ? await RedisServer.start() : undefined;
const bridge = redis ? await UpstashBridge.start(redis.url) : undefined;
const script = await bundleWorker(fileURLToPath(new URL('../support/upstash-worker.ts', import.meta.url)));
const worker = bridge
  ? await orSkip(() =>
      startWorker(script, {
        MODEL_URL: model.url,
        UPSTASH_REDIS_REST_URL: bridge.url,
        UPSTASH_REDIS_REST_TOKEN: bridge.token,
        LEASE_MS: '2000',
      }),
    )
  : undefined;

afterAll(async () => {
  await worker?.dispose();
  await bridge?.stop();
  await redis?.stop();
  await model.close();
});

function send(id: string, signal?: AbortSignal): Promise<Response> {
  return fetch(new URL('/api/chat', worker!.url), {
    method: 'POST',
    headers: { Authorization: 'Bearer alice', 'X-Request-Id': id, 'Content-Type': 'application/json' },
    body: JSON.stringify({ question: 'what outlives a request on the edge?' }),
    signal,
  });
}

describe.skipIf(!worker)('workerd with UpstashStore: the answer outlives the request, over HTTP only', () => {
  it('a client leaves mid-stream; two other tabs attach while it streams; a resend replays it whole — one model call', async () => {
    const before = model.calls.length;
    const leaving = new AbortController();
    const first = await send('edge-upstash-0001', leaving.signal);
    expect(first.status).toBe(200);
    const seen = await readEvents(first, 3);
    leaving.abort(); // the tab closed

    // Two more tabs attach at once, each a request of its own, and follow it to its end from the start.
    const attached = await Promise.all([send('edge-upstash-0001'), send('edge-upstash-0001')]);
    for (const response of attached) {
      expect(response.status).toBe(200);
      expect(tokens(parseEvents(await response.text()))).toEqual(ALL);
    }
    expect(await model.calls.at(-1)!.ended).toBe('whole'); // the model answered to its end, the first caller gone

    const resend = await send('edge-upstash-0001');
    const replayed = await resend.text();
    expect(resend.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(tokens(parseEvents(replayed))).toEqual(ALL);
    expect(replayed.startsWith(seen.text)).toBe(true); // the bytes the first caller got, then the rest
    expect(model.calls).toHaveLength(before + 1);
  });
});
