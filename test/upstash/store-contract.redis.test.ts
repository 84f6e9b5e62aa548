/**
 * UpstashStore meets the same IdempotencyStore, StreamStore and StepStore contracts as
 * MemoryStore and RedisStore: the real `@upstash/redis` client, over Upstash's REST
 * protocol (a loopback bridge), on a real `redis-server`.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { Redis } from '@upstash/redis';
import { UpstashStore } from 'answer-once/upstash';
import { describeStepStoreContract, describeStoreContract, describeStreamStoreContract } from 'answer-once/testing';
import { RedisServer, requireRedisServer } from '../support/redis-server.js';
import { UpstashBridge } from '../support/upstash-bridge.js';

const hasRedis = requireRedisServer();

describe.skipIf(!hasRedis)('UpstashStore over REST on a redis-server', () => {
  let server: RedisServer;
  let bridge: UpstashBridge;
  let redis: Redis;

  beforeAll(async () => {
    server = await RedisServer.start();
    bridge = await UpstashBridge.start(server.url);
    redis = new Redis({ url: bridge.url, token: bridge.token, enableTelemetry: false });
  });

  afterAll(async () => {
    await bridge?.stop();
    await server?.stop();
  });

  // Waiters poll (no pub/sub over HTTP): a change is seen within one poll interval.
  const open = (): UpstashStore => new UpstashStore({ redis, pollIntervalMs: 20, maxPollIntervalMs: 50 });
  describeStoreContract('UpstashStore', open, { slackMs: 250 });
  describeStreamStoreContract('UpstashStore', open, { slackMs: 250 });
  describeStepStoreContract('UpstashStore', open, { slackMs: 250 });
});
