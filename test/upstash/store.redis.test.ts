/**
 * What UpstashStore promises beyond the store contracts: what it costs in REST requests,
 * bytes and strings kept exactly whatever the client's settings, how often a waiter
 * polls, and errors that say whether a retry may help.
 */
import { randomUUID } from 'node:crypto';
import { RedisStoreError, RedisStoreUnavailableError, UpstashStore } from 'answer-once/upstash';
import { describe, expect, it } from 'vitest';
import { rawCommand, requireRedisServer } from '../support/redis-server.js';
import { useUpstashSuite } from '../support/upstash-suite.js';

const newKey = (): string => `answer-once:{user:session:${randomUUID()}}`;
const LEASE = 60_000;

describe.skipIf(!requireRedisServer())('UpstashStore over REST', () => {
  const suite = useUpstashSuite();

  /** REST requests `fn` cost, as the bridge counted them. */
  async function requests(fn: () => Promise<unknown>): Promise<number> {
    const before = suite.bridge.total;
    await fn();
    return suite.bridge.total - before;
  }

  it('runs each operation in one REST request, and one more only when Redis lost the script', async () => {
    const store = suite.open();
    const key = newKey();
    await store.get(newKey()); // the read script is cached from here on
    const first = await requests(() => store.acquire(key, 'fp', LEASE));
    expect(first).toBeLessThanOrEqual(2); // EVALSHA, and EVAL if this database never ran `acquire`
    const held = await store.acquire(newKey(), 'fp', LEASE);
    expect(held.acquired).toBe(true);
    expect(await requests(() => store.get(key))).toBe(1);

    await rawCommand(suite.server.port, 'SCRIPT FLUSH');
    expect(await requests(() => store.get(key))).toBe(2); // NOSCRIPT, then EVAL
    expect(await requests(() => store.get(key))).toBe(1);
  });

  it.each([
    ['the client’s defaults (base64 replies, automatic deserialization)', {}],
    ['automatic deserialization off', { automaticDeserialization: false }],
    ['plain JSON replies', { responseEncoding: false as const }],
  ])('keeps every string and every byte as written, with %s', async (_, options) => {
    const store = new UpstashStore({ redis: suite.client(options) });
    const key = newKey();
    // Strings a JSON.parse would change: a number, a quoted string, an object, `null`.
    const fingerprint = '1234567890';
    const claim = await store.acquire(key, fingerprint, LEASE);
    if (!claim.acquired) throw new Error('expected a claim');
    const every = Uint8Array.from({ length: 256 }, (_, index) => index);
    const split = new TextEncoder().encode('ü✓').subarray(0, 3); // a character cut in two
    await store.append(key, claim.token, { offset: 0, data: every, head: '{"status":200}' });
    await store.append(key, claim.token, { offset: 256, data: split });
    const { log } = await store.read(key, null);
    expect(log?.head).toBe('{"status":200}');
    expect([...(log?.data ?? [])]).toEqual([...every, ...split]);

    for (const result of ['"quoted"', '{"a": 1}', 'null', 'ünïcødé ✓ 🙂']) {
      const again = newKey();
      const held = await store.acquire(again, fingerprint, LEASE);
      if (!held.acquired) throw new Error('expected a claim');
      expect(await store.complete(again, held.token, result, LEASE)).toBe('written');
      expect(await store.get(again)).toMatchObject({ state: 'completed', fingerprint, result });
    }
  });

  it('polls a waiting intent at most once per interval, doubling the pause up to maxPollIntervalMs', async () => {
    const store = suite.open({ pollIntervalMs: 100, maxPollIntervalMs: 400 });
    const key = newKey();
    await store.acquire(key, 'fp', LEASE);
    await store.get(key); // scripts cached
    // Looks at 0, 100, 300, 700 and 1000 ms (the deadline): five requests for one second.
    const cost = await requests(() => store.wait(key, 1_000));
    expect(cost).toBeGreaterThanOrEqual(4);
    expect(cost).toBeLessThanOrEqual(5);
  });

  it('answers a holder’s stop watch from its own appends while they flow, without a request of its own', async () => {
    const store = suite.open({ pollIntervalMs: 50, maxPollIntervalMs: 50 });
    const key = newKey();
    const claim = await store.acquire(key, 'fp', LEASE);
    if (!claim.acquired) throw new Error('expected a claim');
    const done = new AbortController();
    let appends = 0;
    let offset = 0;
    const before = suite.bridge.total;
    const watching = store.watchStop(key, claim.token, 10_000, done.signal);
    for (; appends < 20; appends += 1) {
      const data = new TextEncoder().encode(`data: ${appends}\n\n`);
      await store.append(key, claim.token, { offset, data, ...(offset === 0 ? { head: 'h' } : {}) });
      offset += data.byteLength;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    done.abort();
    expect(await watching).toBe(false);
    // The watch's first look, and at most a few more when an append came late.
    expect(suite.bridge.total - before - appends).toBeLessThanOrEqual(4);
  });

  it('rejects with RedisStoreUnavailableError (retry later) when Upstash cannot be reached or answers late', async () => {
    const closed = new UpstashStore({
      redis: suite.client({ url: 'http://127.0.0.1:9', retry: false }),
      commandTimeoutMs: 2_000,
    });
    const error = await closed.get(newKey()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedisStoreUnavailableError);
    expect(error).toMatchObject({ code: 'store-unavailable' });
  });

  it('rejects with a permanent RedisStoreError when Upstash refuses the token', async () => {
    const refused = new UpstashStore({ redis: suite.client({ token: 'not-the-token', retry: false }) });
    const error = await refused.get(newKey()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedisStoreError);
    expect(error).toMatchObject({ code: 'store-failed', message: expect.stringMatching(/Unauthorized/) });
  });
});

describe.skipIf(!requireRedisServer())('UpstashStore following a streamed answer', () => {
  const suite = useUpstashSuite();

  it('costs a follower one REST request per poll interval while the answer streams, not two', async () => {
    const holder = suite.open();
    const client = suite.client();
    let requests = 0;
    const counted = {
      evalsha: (...args: Parameters<typeof client.evalsha>) => ((requests += 1), client.evalsha(...args)),
      eval: (...args: Parameters<typeof client.eval>) => ((requests += 1), client.eval(...args)),
    };
    const reader = new UpstashStore({ redis: counted, pollIntervalMs: 100, maxPollIntervalMs: 100 });
    const key = newKey();
    const claim = await holder.acquire(key, 'fp', LEASE);
    if (!claim.acquired) throw new Error('expected a claim');
    let offset = 0;
    const batch = (index: number) => new TextEncoder().encode(`data: ${index}\n\n`);
    await holder.append(key, claim.token, { offset, data: batch(0), head: 'h' });
    offset += batch(0).byteLength;
    await reader.get(key); // the scripts are cached from here on
    requests = 0;

    const started = Date.now();
    const appending = (async () => {
      // 1 s of an answer streaming: a batch every 20 ms.
      for (let index = 1; index <= 50; index += 1) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        await holder.append(key, claim.token, { offset, data: batch(index), ...(offset === 0 ? { head: 'h' } : {}) });
        offset += batch(index).byteLength;
      }
    })();
    let { log } = await reader.read(key, null);
    // Bounded: 50 batches, then one read that times out with nothing new.
    for (let reads = 0; log && reads < 100; reads += 1) {
      const next = await reader.read(key, { generation: log.generation, offset: log.length }, { waitMs: 300 });
      if (!next.log || next.log.length === log.length) break;
      log = next.log;
    }
    await appending;
    const elapsed = Date.now() - started;

    expect(log?.length).toBe(offset); // it followed the answer to its end
    // One look per interval over the stream, the first, and the last one's timeout (300 ms: 3 more).
    expect(requests).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 2);
  });
});
