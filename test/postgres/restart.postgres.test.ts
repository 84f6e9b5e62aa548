/**
 * PostgresStore across a PostgreSQL restart: while the server is away every call rejects
 * with a transient store error (the handler answers 503 + Retry-After), and once it is
 * back the store works again and its waiters are woken through NOTIFY again, without
 * anyone restarting the app.
 */

import { PostgresStoreUnavailableError } from 'answer-once/postgres';
import { held } from 'answer-once/testing';
import { describe, expect, it } from 'vitest';
import { requirePostgresServer } from '../support/postgres-server.js';
import { newKey, usePostgresSuite } from '../support/postgres-suite.js';
import { sleep } from '../support/sleep.js';

const hasPostgres = requirePostgresServer();

describe.skipIf(!hasPostgres)('PostgresStore when PostgreSQL restarts', () => {
  const suite = usePostgresSuite();

  it('fails transiently while PostgreSQL is down, then wakes waiters through NOTIFY again', async () => {
    // Polling a minute apart: a wake-up within seconds is a NOTIFY's.
    const store = suite.open({ pollIntervalMs: 60_000 });
    const writer = suite.open({ notifications: false });
    const running = newKey();
    held(await writer.acquire(running, 'fp', 60_000));
    await store.wait(running, 50); // it waited on a live intent: the listening connection is up

    await suite.server.halt('immediate');
    const error = await store.acquire(newKey(), 'fp', 1_000).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PostgresStoreUnavailableError);
    expect(error).toMatchObject({ code: 'store-unavailable' });
    await suite.server.boot();

    const key = newKey();
    const holder = held(await writer.acquire(key, 'fp', 60_000));
    const waiting = store.wait(key, 30_000);
    await sleep(200);
    const completedAt = Date.now();
    expect(await writer.complete(key, holder.token, JSON.stringify('answer'), 60_000)).toBe('written');
    expect(await waiting).toMatchObject({ state: 'completed' });
    // The listening connection comes back within its reconnection backoff (at most 5 s), not a minute.
    expect(Date.now() - completedAt).toBeLessThan(6_000);
  });
});
