/**
 * RedisStore meets the same IdempotencyStore, StreamStore and StepStore contracts as MemoryStore,
 * on a real `redis-server` and on a real 3-master Redis Cluster.
 */

import { RedisStore } from 'answer-once/redis';
import { describeStepStoreContract, describeStoreContract, describeStreamStoreContract } from 'answer-once/testing';
import { describe } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { useRedisSuite } from '../support/redis-suite.js';

const hasRedis = requireRedisServer();

describe.skipIf(!hasRedis)('RedisStore on a standalone redis-server', () => {
  const redis = useRedisSuite();
  const store = () => new RedisStore({ client: redis.client });

  describeStoreContract('RedisStore', store);
  // A wake-up crosses a real socket and a pub/sub hop: on a loaded 2-core machine it may be seen 100+ ms late.
  describeStreamStoreContract('RedisStore', store, { slackMs: 250 });
  describeStepStoreContract('RedisStore', store, { slackMs: 250 });
});

describe.skipIf(!hasRedis)('RedisStore on a 3-master Redis Cluster', () => {
  const redis = useRedisSuite({ cluster: true });
  const store = () => new RedisStore({ client: redis.client });

  // Each call crosses the cluster's sockets and a wake-up a sharded pub/sub hop: on a loaded
  // 2-core machine a wait that answers at once was seen 234 ms after it was asked.
  describeStoreContract('RedisStore (Cluster)', store, { slackMs: 250 });
  describeStreamStoreContract('RedisStore (Cluster)', store, { slackMs: 250 });
  describeStepStoreContract('RedisStore (Cluster)', store, { slackMs: 250 });
});
