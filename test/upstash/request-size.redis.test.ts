/**
 * UpstashStore never sends a REST request over 1 MB (10^6 bytes), whatever the answer's
 * bytes: a large append goes as consecutive appends, a large settle in staged parts that
 * the settle joins in one step, fenced like every write.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { useUpstashSuite } from '../support/upstash-suite.js';

const newKey = (): string => `answer-once:{user:session:${randomUUID()}}`;
const LEASE = 60_000;
const BOUND = 1_000_000;
const MIB = 1024 * 1024;

/** 3 MiB of every byte value, control bytes (six bytes each in JSON) included. */
const everyByte = (size: number): Uint8Array => Uint8Array.from({ length: size }, (_, index) => (index * 7) % 256);

describe.skipIf(!requireRedisServer())('UpstashStore request size', () => {
  const suite = useUpstashSuite();

  it('streams a 3 MiB answer with no request over 1 MB, and reads it back byte for byte', async () => {
    const store = suite.open();
    const key = newKey();
    const claim = await store.acquire(key, 'fp', LEASE);
    if (!claim.acquired) throw new Error('expected a claim');
    const data = everyByte(3 * MIB);
    suite.bridge.reset();
    const appended = await store.append(key, claim.token, { offset: 0, data, head: '{"status":200}', leaseMs: LEASE });
    expect(appended).toEqual({ ok: true, length: data.byteLength, stopRequested: false });
    expect(suite.bridge.largestRequest).toBeLessThanOrEqual(BOUND);
    expect(suite.bridge.total).toBeGreaterThan(3);
    suite.bridge.reset();
    const { log } = await store.read(key, null);
    expect(log?.length).toBe(data.byteLength);
    expect(Buffer.from(log?.data ?? []).equals(Buffer.from(data))).toBe(true);
    expect(suite.bridge.largestReply).toBeLessThanOrEqual(BOUND);
    expect(suite.bridge.total).toBeGreaterThan(3); // in pages
  });

  it('reads a 3 MiB log from any position in pages, each reply under 1 MB', async () => {
    const store = suite.open();
    const key = newKey();
    const claim = await store.acquire(key, 'fp', LEASE);
    if (!claim.acquired) throw new Error('expected a claim');
    const data = new TextEncoder().encode('data: {"delta":"ü / \\n"}\n\n'.repeat((3 * MIB) / 30));
    await store.append(key, claim.token, { offset: 0, data, head: '{"status":200}' });
    const { generation } = (await store.read(key, null)).log ?? { generation: 0 };
    suite.bridge.reset();
    const { log } = await store.read(key, { generation, offset: 12_345 });
    expect(log?.offset).toBe(12_345);
    expect(Buffer.from(log?.data ?? []).equals(Buffer.from(data.subarray(12_345)))).toBe(true);
    expect(suite.bridge.largestReply).toBeLessThanOrEqual(BOUND);
    console.log(`3 MiB SSE read from 12,345: ${suite.bridge.total} requests, largest reply ${suite.bridge.largestReply}`);
  });

  it('completes with a 3 MiB result with no request over 1 MB, stored exactly', async () => {
    const store = suite.open();
    const key = newKey();
    const claim = await store.acquire(key, 'fp', LEASE);
    if (!claim.acquired) throw new Error('expected a claim');
    const result = JSON.stringify({ text: 'ünï "quoted" \\ \u0001 '.repeat((3 * MIB) / 24) });
    suite.bridge.reset();
    expect(await store.complete(key, claim.token, result, LEASE)).toBe('written');
    expect(suite.bridge.largestRequest).toBeLessThanOrEqual(BOUND);
    expect(suite.bridge.total).toBeGreaterThan(3);
    expect(await store.get(key)).toMatchObject({ state: 'completed', result });
  });

  it('never shows a half-staged result, and a run that lost its lease stages and settles nothing', async () => {
    const store = suite.open();
    const key = newKey();
    const stale = await store.acquire(key, 'fp', 50);
    if (!stale.acquired) throw new Error('expected a claim');
    await new Promise((resolve) => setTimeout(resolve, 80));
    const fresh = await store.acquire(key, 'fp', LEASE);
    if (!fresh.acquired) throw new Error('expected a takeover');
    const big = 'x'.repeat(3 * MIB);
    expect(await store.complete(key, stale.token, big, LEASE)).toBe('fenced');
    expect(await store.get(key)).toMatchObject({ state: 'processing' });
    expect(await store.complete(key, fresh.token, `${big}!`, LEASE)).toBe('written');
    expect(await store.get(key)).toMatchObject({ state: 'completed', result: `${big}!` });
  });
});
