/**
 * A settled record whose stored answer is large comes back from UpstashStore whole, read
 * in pages so that no reply is over 1 MB, and only ever as one record: a record claimed
 * again while its answer was being read is read again, never stitched from two.
 */
import { randomUUID } from 'node:crypto';
import type { UpstashRedisClient, UpstashStore } from 'answer-once/upstash';
import { describe, expect, it } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { useUpstashSuite } from '../support/upstash-suite.js';

const newKey = (): string => `answer-once:{user:session:${randomUUID()}}`;
const LEASE = 60_000;
const BOUND = 1_000_000;
const MIB = 1024 * 1024;
/** 3 MiB of text that JSON escapes: quotes, backslashes, slashes, control characters, text above 0x7F. */
const LARGE = 'ünï "quoted" \\ \u0001 a/b '.repeat((3 * MIB) / 24);

/** A new key whose record `store` claimed and settled with `payload` as its result or error. */
async function settled(store: UpstashStore, state: 'completed' | 'failed', payload: string): Promise<string> {
  const key = newKey();
  const claim = await store.acquire(key, 'fp', LEASE);
  if (!claim.acquired) throw new Error('expected a claim');
  const settle = state === 'completed' ? store.complete : store.fail;
  expect(await settle.call(store, key, claim.token, payload, LEASE)).toBe('written');
  return key;
}

describe.skipIf(!requireRedisServer())('UpstashStore reading a large stored answer', () => {
  const suite = useUpstashSuite();

  it('gives get, a refused claim and markAvoided the whole 3 MiB result, no reply over 1 MB', async () => {
    const store = suite.open();
    const key = await settled(store, 'completed', LARGE);
    suite.bridge.reset();

    expect(await store.get(key)).toMatchObject({ state: 'completed', result: LARGE });
    const refused = await store.acquire(key, 'fp', LEASE);
    expect(refused).toMatchObject({ acquired: false, record: { state: 'completed', result: LARGE } });
    expect(await store.markAvoided(key)).toMatchObject({ state: 'completed', result: LARGE, avoided: true });
    expect((await store.read(key, null)).record).toMatchObject({ state: 'completed', result: LARGE });

    expect(Math.max(...suite.bridge.exchanges.map((exchange) => exchange.reply))).toBeLessThanOrEqual(BOUND);
    expect(suite.bridge.exchanges.length).toBeGreaterThan(4 * 3); // each read in pages
  });

  it('gives a 3 MiB error whole, no reply over 1 MB', async () => {
    const store = suite.open();
    const key = await settled(store, 'failed', LARGE);
    suite.bridge.reset();
    expect(await store.get(key)).toMatchObject({ state: 'failed', error: LARGE });
    expect(suite.bridge.largestReply).toBeLessThanOrEqual(BOUND);
  });

  it('reads a record claimed again while its large answer was read afresh, never half of each', async () => {
    const other = suite.open();
    const key = await settled(other, 'failed', LARGE);

    // A client that lets a retry claim and settle the failed record between two pages of its error.
    const redis = suite.client();
    let pages = 0;
    const between: UpstashRedisClient = {
      async evalsha(sha1, keys, args) {
        if (args.length === 5 && args[0] === 'e' && (pages += 1) === 2) {
          const retry = await other.acquire(key, 'fp', LEASE);
          if (!retry.acquired) throw new Error('expected the retry to claim the failed record');
          await other.complete(key, retry.token, 'the retry’s answer', LEASE);
        }
        return redis.evalsha(sha1, keys, args);
      },
      eval: (script, keys, args) => redis.eval(script, keys, args),
    };
    const store = suite.open({ redis: between });

    expect(await store.get(key)).toMatchObject({ state: 'completed', result: 'the retry’s answer', runs: 2 });
    expect(pages).toBe(2);
  });
});
