/**
 * A run's stop watch on Redis costs no subscription of its own: the store subscribes to
 * its one stop channel once, and every watch of every run shares it. A stop still
 * reaches its holder at once, on another instance too.
 */

import { createIdempotencyHandler } from 'answer-once/server';
import { held } from 'answer-once/testing';
import { describe, expect, it } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { newKey, useRedisSuite } from '../support/redis-suite.js';
import { sleep } from '../support/sleep.js';

const hasRedis = requireRedisServer();
const LEASE = 5_000;
const RUNS = 20;

describe.skipIf(!hasRedis)('the stop watch on Redis', () => {
  const { open, calls } = useRedisSuite();

  it('costs one subscription per store however many runs watch, and each stop reaches its holder only', async () => {
    const holder = await open();
    const stopper = await open(); // another instance
    const keys = Array.from({ length: RUNS }, newKey);
    const tokens = await Promise.all(keys.map(async (key) => held(await holder.acquire(key, 'fp', LEASE)).token));
    const woken: boolean[] = [];
    const used = await calls(async () => {
      const watches = keys.map((key, index) =>
        holder.watchStop(key, tokens[index]!, 10 * LEASE).then((stopped) => (woken[index] = stopped)),
      );
      await sleep(300);
      expect(await stopper.stop(keys[3]!)).toBe('stopping');
      await watches[3];
      expect(woken.filter((stopped) => stopped !== undefined)).toHaveLength(1);
      await Promise.all(
        keys.map((key, index) => (index === 3 ? undefined : holder.complete(key, tokens[index]!, 'answer', LEASE))),
      );
      await Promise.all(watches);
    });
    expect(woken).toEqual(keys.map((_, index) => index === 3));
    expect(used.ssubscribe ?? 0).toBe(0);
    expect(used.subscribe ?? 0).toBe(1);
  });

  it('ends a lapsed holder’s watch at once when a takeover claims the intent through the same store', async () => {
    const store = await open();
    const key = newKey();
    const lapsed = held(await store.acquire(key, 'fp', 200)).token;
    const watching = store.watchStop(key, lapsed, 30_000);
    await sleep(300); // past the lease: the holder stalled
    expect(await store.acquire(key, 'fp', LEASE)).toMatchObject({ acquired: true, takeover: true });
    const tookOverAt = Date.now();
    expect(await watching).toBe(false);
    expect(Date.now() - tookOverAt).toBeLessThan(1_000); // not at the watch's 30 s timeout
  });

  it('keeps the new holder’s watch when the lapsed holder’s late complete is fenced on the same store', async () => {
    const store = await open();
    const key = newKey();
    const lapsed = held(await store.acquire(key, 'fp', 200)).token;
    await sleep(300); // past the lease: the holder stalled
    const holder = held(await store.acquire(key, 'fp', LEASE)).token;
    const watching = store.watchStop(key, holder, 10 * LEASE);
    await sleep(100);
    expect(await store.complete(key, lapsed, 'late answer', LEASE)).toBe('fenced');
    expect(await store.stop(key)).toBe('stopping');
    expect(await watching).toBe(true); // still watching: the stop reached it
  });

  it('answers a watch of 0 ms, or one already aborted, with one look: whether a stop was asked, subscribing to nothing', async () => {
    await (await open()).watchStop(newKey(), 't', 0); // Redis's script cache, from another store
    const holder = await open(); // no watch yet: a look that subscribed would show below
    const key = newKey();
    const token = held(await holder.acquire(key, 'fp', LEASE)).token;
    const before = await calls(async () => {
      expect(await holder.watchStop(key, token, 0)).toBe(false);
      expect(await holder.watchStop(key, token, 10 * LEASE, AbortSignal.abort())).toBe(false);
    });
    expect(await holder.stop(key)).toBe('stopping');
    const after = await calls(async () => {
      expect(await holder.watchStop(key, token, 0)).toBe(true);
      expect(await holder.watchStop(key, token, 10 * LEASE, AbortSignal.abort())).toBe(true);
    });
    for (const used of [before, after]) {
      expect(used.evalsha).toBe(2);
      expect(used.subscribe ?? 0).toBe(0);
    }
  });

  it('ends pending stop watches at once on close(), and refuses new ones', async () => {
    const holder = await open();
    const key = newKey();
    const token = held(await holder.acquire(key, 'fp', LEASE)).token;
    const watching = holder.watchStop(key, token, 10 * LEASE);
    await sleep(100);
    const closedAt = Date.now();
    await holder.close();
    expect(await watching).toBe(false);
    expect(Date.now() - closedAt).toBeLessThan(1_000); // ended by close(), not by the watch's timeout
    await expect(holder.watchStop(key, token, LEASE)).rejects.toThrow(/closed/);
  });

  it('makes a first run whose model takes longer than a flush window two round trips: acquire and complete, no look, no subscription', async () => {
    const store = await open();
    const handle = createIdempotencyHandler({
      store,
      scope: () => ({ user: 'u' }),
      flushMs: 10,
      handler: async () => {
        await sleep(100); // longer than a flush window: the run watches for a stop
        return Response.json({ answer: 'Paris' });
      },
    });
    const send = async (id: string) =>
      (
        await handle(
          new Request('http://test.local/api/chat', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Idempotency-Key': id, 'X-Request-Id': id },
            body: '{"question":"q"}',
          }),
        )
      ).json();
    await send('01J00000000000000000000000'); // warm: the scripts cached, the store's one subscription made
    const used = await calls(async () => {
      for (let n = 1; n <= 5; n += 1) expect(await send(`01J0000000000000000000000${n}`)).toEqual({ answer: 'Paris' });
    });
    expect(used.ssubscribe ?? 0).toBe(0);
    expect(used.subscribe ?? 0).toBe(0);
    expect(used.evalsha).toBe(5 * 2);
  });

  it('still hears a stop made between a claim and its watch, on another instance, with no look of its own', async () => {
    const holder = await open();
    const stopper = await open(); // another instance
    await holder.watchStop(newKey(), 't', 1, undefined, Date.now()); // the store's stop channel subscribed
    const key = newKey();
    const sentAt = Date.now();
    const token = held(await holder.acquire(key, 'fp', LEASE)).token;
    expect(await stopper.stop(key)).toBe('stopping');
    await sleep(100); // the publish reached the holder's store before its watch began
    expect(await holder.watchStop(key, token, 10 * LEASE, undefined, sentAt)).toBe(true);
  });

  it('stops a first run whose stop came before its watch began, within the first flush window', async () => {
    const store = await open();
    const stopper = await open(); // another instance
    const stops: Promise<string>[] = [];
    let aborted = false;
    const handle = createIdempotencyHandler({
      store,
      scope: () => ({ user: 'stopped' }),
      flushMs: 300,
      handler: async (_request, { key, signal }) => {
        stops.push(stopper.stop(key)); // the run's watch begins a flush window later
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        aborted = true;
        return Response.json({ answer: 'too late' });
      },
    });
    const send = (id: string) =>
      handle(
        new Request('http://test.local/api/chat', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Idempotency-Key': id, 'X-Request-Id': id },
          body: '{"question":"q"}',
        }),
      );
    const warm = await send('01J00000000000000000000000'); // the store's one subscription made, and stopped
    expect(warm.status).toBe(409);
    aborted = false;
    const started = Date.now();
    const answer = await send('01J00000000000000000000001');
    expect(answer.status).toBe(409);
    expect(await answer.json()).toMatchObject({ type: expect.stringContaining('intent-stopped') });
    expect(aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await Promise.all(stops)).toEqual(['stopping', 'stopping']); // each landed while its run was held
  });
});
