/**
 * The run-time half of `RedisStoreClient`'s promise (the compile-time half is
 * test/redis/client.test-d.ts): what is not a node-redis client is refused by name.
 * Nothing connects to Redis here.
 */

import { RedisStore, type RedisStoreClient } from 'answer-once/redis';
import { describe, expect, it } from 'vitest';

describe('RedisStore', () => {
  it('refuses, naming `client`, an object that is not a node-redis client', () => {
    const wrong = { eval: async () => null } as unknown as RedisStoreClient;
    expect(() => new RedisStore({ client: wrong })).toThrow(/`client`/);
  });
});
