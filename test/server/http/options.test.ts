import { MemoryStore, runOnce } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp } from '../../support/server-support.js';

const base = { scope: () => ({ user: 'u' }), handler: () => new Response() };

describe('createIdempotencyHandler: options', () => {
  it('names the bad option', () => {
    expect(() => chatApp({ ...base, leaseMs: 0 })).toThrow(/`leaseMs`/);
    expect(() => chatApp({ ...base, heartbeatMs: 20_000 })).toThrow(/`heartbeatMs`/);
    expect(() => chatApp({ ...base, statusPath: 'status' })).toThrow(/`statusPath`/);
    expect(() => chatApp({ ...base, inProgressStatus: 200 as 202 })).toThrow(/`inProgressStatus`/);
    expect(() => chatApp({ ...base, maxBodyBytes: -1 })).toThrow(/`maxBodyBytes`/);
    expect(() => chatApp({ ...base, keyPrefix: 'a{b}' })).toThrow(/`keyPrefix`/);
    expect(() => chatApp({ ...base, cors: { origin: 3 as unknown as string } })).toThrow(/`cors.origin`/);
    expect(() => chatApp({ ...base, maxRunMs: 0 })).toThrow(/`maxRunMs`/);
    expect(() => chatApp({ ...base, storeTimeoutMs: Number.NaN })).toThrow(/`storeTimeoutMs`/);
    expect(() => chatApp({ ...base, eventsIncludeUser: 'yes' as unknown as boolean })).toThrow(/`eventsIncludeUser`/);
  });

  it('refuses a lease whose heartbeat would overflow a timer (leaseMs: 9e9), in the handler and in runOnce', async () => {
    expect(() => chatApp({ ...base, leaseMs: 9e9 })).toThrow(
      '`leaseMs` must be an integer from 2 to 2147483647; got 9000000000.',
    );
    expect(() => chatApp({ ...base, leaseMs: 9e9, heartbeatMs: 1_000 })).toThrow(/`leaseMs`/);
    expect(() => chatApp({ ...base, maxWaitMs: 2 ** 31 })).toThrow(/`maxWaitMs`/);
    await expect(runOnce(new MemoryStore(), 'k', async () => 1, { leaseMs: 9e9 })).rejects.toThrow(/`leaseMs`/);
    await expect(runOnce(new MemoryStore(), 'k', async () => 1, { waitMs: 2 ** 31 })).rejects.toThrow(/`waitMs`/);
  });

  it('refuses to replay Set-Cookie (or Set-Cookie2), in any case, at creation', () => {
    for (const name of ['set-cookie', 'Set-Cookie', 'SET-COOKIE2', 'set-cookie2']) {
      expect(() => chatApp({ ...base, replayHeaders: ['content-type', name] })).toThrow(/`replayHeaders`/);
    }
    expect(() => chatApp({ ...base, replayHeaders: ['content-type', 'etag'] })).not.toThrow();
  });
});
