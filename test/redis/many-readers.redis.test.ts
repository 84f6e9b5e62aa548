/**
 * Thousands of readers attached to one live intent on one instance over RedisStore
 * (PROTOCOL.md § 13, § 14.6): every append wakes them all at once; they share one read
 * of the new batch instead of sending one each, so Redis does per append what it does
 * for one reader, and every reader gets the whole answer.
 */

import { createIdempotencyHandler } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { scriptRoundTrips } from '../support/redis-stats.js';
import { useRedisSuite } from '../support/redis-suite.js';
import { gate } from '../support/server-support.js';
import { sleep } from '../support/sleep.js';
import { tokenResponse } from '../support/token-stream.js';

const hasRedis = requireRedisServer();
const READERS = 5_000;
const EVENTS = 40;

describe.skipIf(!hasRedis)('5,000 readers attached to one intent over RedisStore', () => {
  const redis = useRedisSuite();

  it('gives every reader the whole answer, byte for byte, with Redis reads per append, not per reader', async () => {
    let calls = 0;
    const held = gate();
    const store = await redis.open();
    const handle = createIdempotencyHandler({
      store,
      scope: () => ({ user: 'alice' }),
      handler: () => {
        calls += 1;
        const tokens = Array.from({ length: EVENTS }, (_, index) => `token ${index} of the answer`);
        return tokenResponse(tokens, { delayMs: 10, hold: held.promise });
      },
    });
    const id = 'many-readers-0001';
    const first = await handle(
      new Request('http://app.test/api/chat', {
        method: 'POST',
        headers: { 'X-Request-Id': id, 'Content-Type': 'application/json' },
        body: '{"question":"hi"}',
      }),
    );
    const firstBody = first.arrayBuffer();
    await sleep(100); // the head and the first event are logged
    const readers: ReadableStreamDefaultReader<Uint8Array>[] = [];
    for (let batch = 0; batch < READERS; batch += 500) {
      const attached = await Promise.all(
        Array.from({ length: 500 }, () => handle(new Request(`http://app.test/api/status/${id}`))),
      );
      for (const response of attached) {
        expect(response.headers.get('x-idempotent-attached')).toBe('true');
        readers.push(response.body!.getReader());
      }
    }
    const bodies: Buffer[] = [];
    const roundTrips = scriptRoundTrips(
      await redis.calls(async () => {
        held.open();
        await firstBody;
        bodies.push(
          ...(await Promise.all(
            readers.map(async (reader) => {
              const chunks: Uint8Array[] = [];
              for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
              return Buffer.concat(chunks);
            }),
          )),
        );
      }),
    );
    const stored = Buffer.from(await (await handle(new Request(`http://app.test/api/status/${id}`))).arrayBuffer());
    expect(stored.toString()).toContain(`data: token ${EVENTS - 1} of the answer`);
    expect(bodies.filter((body) => !body.equals(stored))).toHaveLength(0);
    expect(calls).toBe(1);
    // One reader per append would be 5,000 reads for each of the answer's batches.
    expect(roundTrips).toBeLessThan(READERS / 2);
    console.info(`[many readers] ${READERS} readers followed the answer in ${roundTrips} script round trips`);
  });
});
