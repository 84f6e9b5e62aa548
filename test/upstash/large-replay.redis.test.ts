/**
 * A large answer on the HTTP-only store, through the handler and the real `@upstash/redis`
 * client: its first run and every replay of it stay within Upstash's request size with
 * room to spare — no REST request and no reply over 1 MB — and a replay is the answer the
 * first caller got, byte for byte.
 */

import { createIdempotencyHandler } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { useUpstashSuite } from '../support/upstash-suite.js';

const MIB = 1024 * 1024;
const BOUND = 1_000_000;
const encoder = new TextEncoder();

/** One SSE event of about 1 KiB: text above 0x7F, quotes, a backslash and a slash, as a model's deltas have them. */
const event = (index: number): string =>
  `data: ${JSON.stringify({ delta: `${index} ünïcödé "quoted" \\ a/b `.repeat(24) })}\n\n`;

/** About `bytes` of SSE, in events of about 1 KiB. */
function streamedAnswer(bytes: number): Response {
  let index = 0;
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      const chunk = encoder.encode(event(index));
      index += 1;
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
}

/** A JSON answer of about `bytes`: text above 0x7F, quotes, backslashes and control characters escaped. */
const jsonAnswer = (bytes: number): Response =>
  Response.json({ text: 'ünï "quoted" \\ \u0001 a/b '.repeat(Math.ceil(bytes / 30)) });

const send = (handle: (request: Request) => Promise<Response>, id: string): Promise<Response> =>
  handle(
    new Request('http://app.test/api/chat', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': id },
      body: JSON.stringify({ question: 'a long one' }),
    }),
  );

describe.skipIf(!requireRedisServer())('UpstashStore with a large answer', () => {
  const suite = useUpstashSuite();

  const cases = [
    ['streamed', 'large-stream-0001', () => streamedAnswer(3 * MIB)],
    ['JSON', 'large-json-00001', () => jsonAnswer(3 * MIB)],
  ] as const;

  for (const [kind, id, answer] of cases) {
    it(`replays a 3 MiB ${kind} answer byte for byte, no REST request or reply over 1 MB`, async () => {
      let runs = 0;
      const handle = createIdempotencyHandler({
        store: suite.open(),
        scope: () => ({ user: 'alice', session: 'large' }),
        maxResponseBytes: 4 * MIB,
        // A replay reads the stored answer in ~10 requests within one store call; on this
        // loopback bridge under a loaded machine that is seconds, not what is measured here.
        storeTimeoutMs: 60_000,
        handler: () => {
          runs += 1;
          return answer();
        },
      });
      suite.bridge.reset();

      const first = await send(handle, id);
      const firstBytes = Buffer.from(await first.arrayBuffer());
      const replay = await send(handle, id);
      const replayBytes = Buffer.from(await replay.arrayBuffer());

      expect(runs).toBe(1);
      expect(first.status).toBe(200);
      expect(firstBytes.byteLength).toBeGreaterThan(3 * MIB);
      expect(replay.status).toBe(200);
      expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
      expect(replay.headers.get('Content-Type')).toBe(first.headers.get('Content-Type'));
      expect(replayBytes.equals(firstBytes)).toBe(true);
      const { exchanges } = suite.bridge;
      expect(exchanges.length).toBeGreaterThan(2);
      expect(exchanges.filter((exchange) => exchange.request > BOUND || exchange.reply > BOUND)).toEqual([]);
    });
  }
});
