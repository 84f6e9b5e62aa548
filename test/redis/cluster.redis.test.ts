/**
 * A real 3-master Redis Cluster: records stay in their hash tag's slot, and the same
 * multi-process chaos spec as on one redis-server passes.
 */
import { randomUUID } from 'node:crypto';
import type { RedisStore } from 'answer-once/redis';
import { beforeEach, describe, expect, it } from 'vitest';
import { describeChaos } from '../support/redis-chaos.js';
import { rawCommand, requireRedisServer } from '../support/redis-server.js';
import { scriptRoundTrips } from '../support/redis-stats.js';
import { useRedisSuite } from '../support/redis-suite.js';

const hasRedis = requireRedisServer();

const slotOf = async (port: number, key: string): Promise<number> =>
  Number(/^:(\d+)/.exec(await rawCommand(port, `CLUSTER KEYSLOT ${key}`))?.[1]);

describe.skipIf(!hasRedis)('answer-once/redis on a 3-master Redis Cluster', () => {
  const redis = useRedisSuite({ cluster: true });

  describe('RedisStore', () => {
    let store: RedisStore;

    beforeEach(async () => {
      store = await redis.open({ client: redis.client, prefix: 'env:' });
    });

    it('keeps every record in its hash tag’s slot, spread over all three masters', async () => {
      const ports = redis.cluster.nodes.map((node) => node.port);
      const holders = new Set<number>();
      for (let index = 0; index < 30; index += 1) {
        const tag = `{user:session:${randomUUID()}}`;
        const key = `answer-once:${tag}`;
        const claim = await store.acquire(key, 'fp', 5_000);
        expect(claim.acquired && (await store.complete(key, claim.token, 'answer', 60_000))).toBe('written');
        expect(await slotOf(ports[0]!, `env:${key}`)).toBe(await slotOf(ports[0]!, tag));
        for (const port of ports) {
          if ((await rawCommand(port, `EXISTS env:${key}`)) === ':1\r\n') holders.add(port);
        }
      }
      expect(holders.size).toBe(3);
    });

    it('keeps an intent’s answer log in its record’s slot, with a hash tag or without one', async () => {
      const ports = redis.cluster.nodes.map((node) => node.port);
      for (const key of [`answer-once:{user:session:${randomUUID()}}`, `plain-${randomUUID()}`]) {
        const claim = await store.acquire(key, 'fp', 5_000);
        if (!claim.acquired) throw new Error('expected to acquire');
        // One script over the record and the log: a Cluster refuses it (CROSSSLOT) unless they share a slot.
        expect(await store.append(key, claim.token, { offset: 0, data: Uint8Array.of(1, 2, 3), head: 'h' })).toMatchObject({
          ok: true,
        });
        const { log } = await store.read(key, null);
        expect([...(log?.data ?? [])]).toEqual([1, 2, 3]);
        const logKey = key.includes('{') ? `env:${key}:log` : `{env:${key}}:log`;
        expect(await slotOf(ports[0]!, logKey)).toBe(await slotOf(ports[0]!, `env:${key}`));
      }
    });

    it('replays in one round trip on the Cluster too, counted by the masters', async () => {
      const key = `answer-once:{user:session:${randomUUID()}}`;
      const claim = await store.acquire(key, 'fp', 5_000);
      if (!claim.acquired) throw new Error('expected to acquire');
      await store.complete(key, claim.token, 'answer', 60_000);
      const calls = await redis.calls(() => store.acquire(key, 'fp', 5_000));
      expect(scriptRoundTrips(calls)).toBe(1);
    });
  });

  describeChaos('Cluster', () => ({ urls: redis.urls, cluster: true }));
});
