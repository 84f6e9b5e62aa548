import { describe, expect, it } from 'vitest';
import type { UpstashRedisClient } from '../../src/upstash/client.js';
import { normalizeUpstashStoreOptions } from '../../src/upstash/options.js';

const redis: UpstashRedisClient = { evalsha: async () => null, eval: async () => null };

describe('normalizeUpstashStoreOptions', () => {
  it('fills in the documented defaults', () => {
    expect(normalizeUpstashStoreOptions({ redis })).toEqual({
      redis,
      prefix: '',
      processingGraceMs: 60_000,
      commandTimeoutMs: 5_000,
      pollIntervalMs: 100,
      maxPollIntervalMs: 1_000,
    });
  });

  it('keeps given values, and raises the longest pause to a longer first one', () => {
    expect(
      normalizeUpstashStoreOptions({ redis, prefix: 'staging:', pollIntervalMs: 50, maxPollIntervalMs: 400 }),
    ).toMatchObject({ prefix: 'staging:', pollIntervalMs: 50, maxPollIntervalMs: 400 });
    expect(normalizeUpstashStoreOptions({ redis, pollIntervalMs: 2_000 })).toMatchObject({
      pollIntervalMs: 2_000,
      maxPollIntervalMs: 2_000,
    });
  });

  it('rejects something that is not an @upstash/redis client, naming `redis`', () => {
    expect(() => normalizeUpstashStoreOptions({ redis: {} as UpstashRedisClient })).toThrow(/`redis`/);
    expect(() => normalizeUpstashStoreOptions(undefined as never)).toThrow(TypeError);
  });

  it('rejects a longest pause shorter than the first, a pause of 0 and a prefix with a hash tag, each by name', () => {
    expect(() => normalizeUpstashStoreOptions({ redis, pollIntervalMs: 200, maxPollIntervalMs: 100 })).toThrow(
      /`maxPollIntervalMs`/,
    );
    expect(() => normalizeUpstashStoreOptions({ redis, pollIntervalMs: 0 })).toThrow(/`pollIntervalMs`/);
    expect(() => normalizeUpstashStoreOptions({ redis, prefix: '{a}' })).toThrow(/`prefix`/);
  });
});
