/**
 * RedisStore meets the same IdempotencyStore, StreamStore and StepStore contracts as MemoryStore,
 * on a real `redis-server` and on a real 3-master Redis Cluster.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { createClient, createCluster } from 'redis';
import { RedisStore, type RedisStoreClient } from 'answer-once/redis';
import { describeStepStoreContract, describeStoreContract, describeStreamStoreContract } from 'answer-once/testing';
import { RedisClusterServer, RedisServer, requireRedisServer } from '../support/redis-server.js';

const hasRedis = requireRedisServer();

describe.skipIf(!hasRedis)('RedisStore on a standalone redis-server', () => {
  let server: RedisServer;
  let client: RedisStoreClient & { close(): Promise<void> };

  beforeAll(async () => {
    server = await RedisServer.start();
    client = await createClient({ url: server.url })
      .on('error', () => {})
      .connect();
  });

  afterAll(async () => {
    await client?.close();
    await server?.stop();
  });

  describeStoreContract('RedisStore', () => new RedisStore({ client }));
  // A wake-up crosses a real socket and a pub/sub hop: on a loaded 2-core machine it may be seen 100+ ms late.
  describeStreamStoreContract('RedisStore', () => new RedisStore({ client }), { slackMs: 250 });
  describeStepStoreContract('RedisStore', () => new RedisStore({ client }), { slackMs: 250 });
});

describe.skipIf(!hasRedis)('RedisStore on a 3-master Redis Cluster', () => {
  let cluster: RedisClusterServer;
  let client: RedisStoreClient & { close(): Promise<void> };

  beforeAll(async () => {
    cluster = await RedisClusterServer.start();
    client = await createCluster({ rootNodes: cluster.rootNodes })
      .on('error', () => {})
      .connect();
  });

  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  // Each call crosses the cluster's sockets and a wake-up a sharded pub/sub hop: on a loaded
  // 2-core machine a wait that answers at once was seen 234 ms after it was asked.
  describeStoreContract('RedisStore (Cluster)', () => new RedisStore({ client }), { slackMs: 250 });
  describeStreamStoreContract('RedisStore (Cluster)', () => new RedisStore({ client }), { slackMs: 250 });
  describeStepStoreContract('RedisStore (Cluster)', () => new RedisStore({ client }), { slackMs: 250 });
});
