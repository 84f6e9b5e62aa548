/**
 * PostgresStore works on a pool of any size, one connection included (the usual advice
 * for `pg` on serverless platforms): waiting requests are woken through a connection of
 * the store's own, never one of the pool's, which is ended once nobody waits; a pool that
 * cannot open one has its waiters poll, and says so once.
 */

import type { PostgresPool, PostgresStore } from 'answer-once/postgres';
import { createIdempotencyHandler } from 'answer-once/server';
import { held } from 'answer-once/testing';
import { describe, expect, it } from 'vitest';
import { requirePostgresServer } from '../support/postgres-server.js';
import { newKey, usePostgresSuite } from '../support/postgres-suite.js';
import { sleep } from '../support/sleep.js';
import { tokenResponse } from '../support/token-stream.js';

const hasPostgres = requirePostgresServer();
const EVENTS = 30;
const ANSWERS = 5;

describe.skipIf(!hasPostgres)('PostgresStore on a pool of one connection', () => {
  const suite = usePostgresSuite();

  /** The backends LISTENing right now (the store's listening connections). */
  const listening = async (): Promise<number> =>
    (await suite.pool.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN%'")).rows[0].n;

  /**
   * A wait on a fresh key, its holder completing `waitedMs` into it: how many ms the
   * waiter took to wake with the completed record.
   */
  const wokenAfter = async (store: PostgresStore, waitedMs: number): Promise<number> => {
    const key = newKey();
    const holder = held(await store.acquire(key, 'fp', 60_000));
    const waiting = store.wait(key, 10_000);
    await sleep(waitedMs);
    const completedAt = Date.now();
    await store.complete(key, holder.token, 'answer', 60_000);
    expect(await waiting).toMatchObject({ state: 'completed' });
    return Date.now() - completedAt;
  };

  it('streams every answer to its end, holds a duplicate with Prefer: wait until it lands, and answers every request after', {
    timeout: 60_000,
  }, async () => {
    let calls = 0;
    const handle = createIdempotencyHandler({
      store: suite.open({ pool: suite.single }),
      scope: () => ({ user: 'alice' }),
      handler: () => {
        calls += 1;
        const tokens = Array.from({ length: EVENTS }, (_, index) => `token ${index} of the answer`);
        return tokenResponse(tokens, { delayMs: 10 });
      },
    });
    const post = (id: string, headers: Record<string, string> = {}) =>
      handle(
        new Request('http://app.test/api/chat', { method: 'POST', headers: { 'X-Request-Id': id, ...headers }, body: '{}' }),
      );

    const started = performance.now();
    for (let answer = 0; answer < ANSWERS; answer += 1) {
      const id = `pool-of-one-${answer}-${crypto.randomUUID()}`;
      const first = await post(id);
      expect(first.status).toBe(200);
      const firstBody = first.text();
      await sleep(50);
      const duplicate = await post(id, { Prefer: 'wait=10' });
      const [whole, again] = await Promise.all([firstBody, duplicate.text()]);
      expect(whole).toContain(`data: token ${EVENTS - 1} of the answer`);
      expect(again).toContain(`data: token ${EVENTS - 1} of the answer`);
      const replay = await post(id);
      expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
      expect(await replay.text()).toBe(whole);
    }
    expect(calls).toBe(ANSWERS);
    expect(suite.single.waitingCount).toBe(0);
    console.info(
      `[pool of one] ${ANSWERS} streamed answers of ${EVENTS} events, each with a held duplicate and a replay, in ${(performance.now() - started).toFixed(0)} ms`,
    );
  });

  it('lets its listening connection go once nobody has waited for 5 s', { timeout: 30_000 }, async () => {
    const store = suite.open({ pool: suite.single, pollIntervalMs: 60_000 });
    const key = newKey();
    const holder = held(await store.acquire(key, 'fp', 60_000));
    const waiting = store.wait(key, 10_000);
    await sleep(200);
    expect(await listening()).toBe(1);
    await store.complete(key, holder.token, 'answer', 60_000);
    expect(await waiting).toMatchObject({ state: 'completed' });
    const doneAt = Date.now();
    while ((await listening()) > 0 && Date.now() - doneAt < 10_000) await sleep(100);
    expect(await listening()).toBe(0);
    expect(Date.now() - doneAt).toBeGreaterThanOrEqual(4_500);

    // The next wait opens it again, and is woken through it.
    expect(await wokenAfter(store, 200)).toBeLessThan(1_000);
  });

  it('polls when the pool cannot open a connection of its own, and says so once', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      if ((warning as { code?: string }).code === 'ANSWER_ONCE_POSTGRES_POLLING') warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      const bare: PostgresPool = { query: (text, values) => suite.single.query(text, values) };
      const store = suite.open({ pool: bare, pollIntervalMs: 25 });
      for (let round = 0; round < 2; round += 1) {
        expect(await wokenAfter(store, 100)).toBeLessThan(500);
      }
      await sleep(10); // warnings are emitted on the next tick
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toMatch(/answer-once\/postgres: .*poll/);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
