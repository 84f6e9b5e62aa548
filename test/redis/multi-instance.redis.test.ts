/**
 * Several server instances, one Redis: the chaos spec (lost responses, a frozen worker, a
 * killed worker) on a standalone redis-server, and a Redis restart with `appendonly yes`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHAOS_LEASE_MS, describeChaos, newIntentId, sendAttempt } from '../support/redis-chaos.js';
import { requireRedisServer } from '../support/redis-server.js';
import { useRedisSuite } from '../support/redis-suite.js';
import { ServerInstance } from '../support/server-instances.js';
import { sleep } from '../support/sleep.js';

const hasRedis = requireRedisServer();

describe.skipIf(!hasRedis)('answer-once/redis on a standalone redis-server', () => {
  const redis = useRedisSuite({ appendonly: true });

  describeChaos('redis-server', () => ({ urls: redis.urls, cluster: false }));

  describe('a Redis restart (appendonly yes)', () => {
    let instances: ServerInstance[] = [];

    beforeEach(async () => {
      instances = await Promise.all(
        ['A', 'B'].map((name) => ServerInstance.start({ name, urls: redis.urls, leaseMs: CHAOS_LEASE_MS })),
      );
    });

    afterEach(async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
    });

    it('answers 503 + Retry-After while Redis is down, running nothing; then replays every COMPLETED answer byte for byte', async () => {
      const [a, b] = instances as [ServerInstance, ServerInstance];
      const ids = Array.from({ length: 50 }, newIntentId);
      const before = new Map<string, Uint8Array>();
      for (const [index, id] of ids.entries()) {
        const attempt = await sendAttempt(index % 2 ? a : b, id, { question: `“${index}” ✓\n` });
        expect(attempt.status).toBe(200);
        before.set(id, attempt.bytes);
      }

      await redis.server.halt();
      try {
        const response = await fetch(`${a.url}/api/chat`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-request-id': newIntentId() },
          body: '{"question":"while Redis is down"}',
        });
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
        expect((await response.json()) as unknown).toMatchObject({ code: 'store-unavailable' });
      } finally {
        await redis.server.boot();
      }
      const workBefore = instances.flatMap((i) => i.events).filter((e) => e.event === 'work-start').length;
      expect(workBefore).toBe(50);

      for (const [index, id] of ids.entries()) {
        const instance = index % 2 ? b : a;
        let replay = await sendAttempt(instance, id, { question: `“${index}” ✓\n` });
        // The instances reconnect on their own (reconnectStrategy); a 503 meanwhile is retried.
        for (let retry = 0; replay.status === 503 && retry < 50; retry += 1) {
          await sleep(100);
          replay = await sendAttempt(instance, id, { question: `“${index}” ✓\n` });
        }
        expect(replay).toMatchObject({ status: 200, replayed: true });
        expect(Buffer.from(replay.bytes).equals(before.get(id)!)).toBe(true);
      }
      expect(instances.flatMap((i) => i.events).filter((e) => e.event === 'work-start')).toHaveLength(50);
    });
  });
});
