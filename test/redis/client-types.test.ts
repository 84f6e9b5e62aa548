/**
 * `RedisStoreClient` is structural: every node-redis client shape a user may hold fits
 * without a cast. Checked by `tsc` (this file is type-checked with the rest); creating a
 * client opens no connection, so nothing runs against Redis here.
 */
import { describe, expect, it } from 'vitest';
import { createClient, createCluster, RESP_TYPES } from 'redis';
import { RedisStore, type RedisStoreClient } from 'answer-once/redis';

describe('RedisStoreClient', () => {
  it('accepts createClient() and createCluster(), RESP2 or RESP3, with any type mapping', () => {
    const clients: RedisStoreClient[] = [
      createClient(),
      createClient({ RESP: 3 }),
      createClient().withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }),
      createCluster({ rootNodes: [{ url: 'redis://127.0.0.1:7000' }] }),
      createCluster({ rootNodes: [], RESP: 3 }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }),
    ];
    expect(clients.map((client) => new RedisStore({ client }))).toHaveLength(5);
  });

  it('rejects what is not a client, at compile time and at run time', () => {
    // @ts-expect-error -- an ioredis-like object without evalSha/duplicate is not a node-redis client
    const wrong: RedisStoreClient = { eval: async () => null };
    expect(() => new RedisStore({ client: wrong })).toThrow(/`client`/);
  });
});
