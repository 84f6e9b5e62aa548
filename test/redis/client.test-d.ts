/**
 * `RedisStoreClient` is structural: every node-redis client shape a user may hold fits
 * without a cast. Checked by vitest's typecheck (tsc); nothing runs, no connection opens.
 */

import type { RedisStoreClient } from 'answer-once/redis';
import { createClient, createCluster, RESP_TYPES } from 'redis';
import { describe, expectTypeOf, it } from 'vitest';

describe('RedisStoreClient', () => {
  it('accepts createClient(), RESP2 or RESP3, with any type mapping', () => {
    expectTypeOf(createClient()).toExtend<RedisStoreClient>();
    expectTypeOf(createClient({ RESP: 3 })).toExtend<RedisStoreClient>();
    expectTypeOf(createClient().withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer })).toExtend<RedisStoreClient>();
  });

  it('accepts createCluster(), RESP2 or RESP3, with any type mapping', () => {
    expectTypeOf(createCluster({ rootNodes: [] })).toExtend<RedisStoreClient>();
    expectTypeOf(
      createCluster({ rootNodes: [], RESP: 3 }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer }),
    ).toExtend<RedisStoreClient>();
  });

  it('rejects an ioredis-like object without evalSha or duplicate', () => {
    expectTypeOf({ eval: async () => null }).not.toExtend<RedisStoreClient>();
  });
});
