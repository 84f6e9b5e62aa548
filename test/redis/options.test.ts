import { describe, expect, it } from 'vitest';
import type { RedisStoreClient } from '../../src/redis/client.js';
import { normalizeRedisStoreOptions } from '../../src/redis/options.js';

const client: RedisStoreClient = {
  evalSha: async () => null,
  eval: async () => null,
  duplicate: () => {
    throw new Error('not used');
  },
  withTypeMapping: () => client,
};

describe('normalizeRedisStoreOptions', () => {
  it('fills in the documented defaults', () => {
    expect(normalizeRedisStoreOptions({ client })).toEqual({
      client,
      prefix: '',
      processingGraceMs: 60_000,
      commandTimeoutMs: 2_000,
    });
  });

  it('keeps given values', () => {
    expect(
      normalizeRedisStoreOptions({ client, prefix: 'staging:', processingGraceMs: 0, commandTimeoutMs: 250 }),
    ).toMatchObject({
      prefix: 'staging:',
      processingGraceMs: 0,
      commandTimeoutMs: 250,
    });
  });

  it('rejects something that is not a node-redis client, naming `client`', () => {
    expect(() => normalizeRedisStoreOptions({ client: {} as RedisStoreClient })).toThrow(TypeError);
    expect(() => normalizeRedisStoreOptions({ client: {} as RedisStoreClient })).toThrow(/`client`/);
    expect(() => normalizeRedisStoreOptions(undefined as never)).toThrow(TypeError);
  });

  it('rejects a prefix that would shadow the key’s hash tag, naming `prefix`', () => {
    expect(() => normalizeRedisStoreOptions({ client, prefix: '{app}:' })).toThrow(/`prefix`/);
    expect(() => normalizeRedisStoreOptions({ client, prefix: 42 as never })).toThrow(/`prefix`/);
  });

  it.each([
    ['processingGraceMs', -1],
    ['processingGraceMs', 1.5],
    ['commandTimeoutMs', 0],
    ['commandTimeoutMs', Number.NaN],
    ['commandTimeoutMs', 2 ** 31],
  ])('rejects %s = %s with a TypeError naming it', (name, value) => {
    expect(() => normalizeRedisStoreOptions({ client, [name]: value })).toThrow(new RegExp(`\`${name}\``));
  });
});
