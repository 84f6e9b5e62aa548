/**
 * UpstashStore meets the same IdempotencyStore, StreamStore and StepStore contracts as
 * MemoryStore and RedisStore: the real `@upstash/redis` client, over Upstash's REST
 * protocol (a loopback bridge), on a real `redis-server`.
 */

import { describeStepStoreContract, describeStoreContract, describeStreamStoreContract } from 'answer-once/testing';
import type { UpstashStore } from 'answer-once/upstash';
import { describe } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { useUpstashSuite } from '../support/upstash-suite.js';

describe.skipIf(!requireRedisServer())('UpstashStore over REST on a redis-server', () => {
  const suite = useUpstashSuite();
  // Waiters poll (no pub/sub over HTTP): a change is seen within one poll interval.
  const open = (): UpstashStore => suite.open({ pollIntervalMs: 20, maxPollIntervalMs: 50 });
  describeStoreContract('UpstashStore', open, { slackMs: 250 });
  describeStreamStoreContract('UpstashStore', open, { slackMs: 250 });
  describeStepStoreContract('UpstashStore', open, { slackMs: 250 });
});
