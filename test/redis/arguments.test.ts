/**
 * What a caller hands RedisStore is checked before it becomes a script argument: a bad
 * value is a TypeError naming it, and nothing reaches Redis (src/redis/arguments.ts).
 * The client here is a stand-in that counts calls; nothing connects.
 */

import { RedisStore, type RedisStoreClient } from 'answer-once/redis';
import { describe, expect, it } from 'vitest';

const KEY = 'answer-once:{user:session:1}';

function offlineStore(): { store: RedisStore; calls: () => number } {
  let calls = 0;
  const client: RedisStoreClient = {
    evalSha: async () => {
      calls += 1;
      throw new Error('no Redis here');
    },
    eval: async () => {
      calls += 1;
      throw new Error('no Redis here');
    },
    duplicate: () => {
      throw new Error('no Redis here');
    },
    withTypeMapping: () => client,
  };
  return { store: new RedisStore({ client }), calls: () => calls };
}

const bytes = Uint8Array.of(1);

describe('RedisStore’s argument checks', () => {
  it.each([
    ['renew', 'token', (store: RedisStore) => store.renew(KEY, 42 as never, 1_000)],
    ['renew', 'leaseMs', (store: RedisStore) => store.renew(KEY, 't', 0)],
    ['acquire', 'fingerprint', (store: RedisStore) => store.acquire(KEY, null as never, 1_000)],
    ['acquire', 'leaseMs', (store: RedisStore) => store.acquire(KEY, 'fp', Number.NaN)],
    ['complete', 'ttlMs', (store: RedisStore) => store.complete(KEY, 't', 'answer', 0)],
    ['fail', 'token', (store: RedisStore) => store.fail(KEY, undefined as never, 'boom', 1_000)],
    ['wait', 'timeoutMs', (store: RedisStore) => store.wait(KEY, -1)],
    ['append', 'token', (store: RedisStore) => store.append(KEY, 7 as never, { offset: 0, data: bytes, head: 'h' })],
    ['append', 'leaseMs', (store: RedisStore) => store.append(KEY, 't', { offset: 0, data: bytes, leaseMs: 0 })],
    ['read', 'waitMs', (store: RedisStore) => store.read(KEY, null, { waitMs: -5 })],
    ['watchStop', 'timeoutMs', (store: RedisStore) => store.watchStop(KEY, 't', Number.POSITIVE_INFINITY)],
    ['watchStop', 'token', (store: RedisStore) => store.watchStop(KEY, 1 as never, 1_000)],
    ['get', 'key', (store: RedisStore) => store.get('')],
    ['complete', 'result', (store: RedisStore) => store.complete(KEY, 't', 42 as never, 1_000)],
    ['fail', 'error', (store: RedisStore) => store.fail(KEY, 't', { message: 'boom' } as never, 1_000)],
    ['read', 'from', (store: RedisStore) => store.read(KEY, { generation: 1.5, offset: 0 })],
    ['read', 'from', (store: RedisStore) => store.read(KEY, { generation: 1, offset: Number.NaN })],
    ['read', 'from', (store: RedisStore) => store.read(KEY, { generation: 1, offset: -1 })],
  ])('%s rejects a bad `%s` with a TypeError naming it, sending nothing to Redis', async (_, name, call) => {
    const { store, calls } = offlineStore();
    const error = await call(store).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain(`\`${name}\``);
    expect(calls()).toBe(0);
  });
});
