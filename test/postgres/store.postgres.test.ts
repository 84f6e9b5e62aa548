/**
 * What PostgresStore promises beyond the shared contract, on a real PostgreSQL: one
 * statement per operation, the database's clock, instances woken through NOTIFY, the
 * bounded sweep along indexes, and a schema a migration tool can own (or the store
 * makes, and makes again).
 */

import { type PostgresPool, PostgresStore, PostgresStoreError, postgresStoreSchema } from 'answer-once/postgres';
import { runOnce } from 'answer-once/server';
import { bytes, claimGeneration, found, held } from 'answer-once/testing';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { requirePostgresServer } from '../support/postgres-server.js';
import { newKey, usePostgresSuite } from '../support/postgres-suite.js';
import { sleep } from '../support/sleep.js';

const hasPostgres = requirePostgresServer();
const LEASE = 300;
const TTL = 60_000;

/** The pool, counting the statements sent through it (each `query` is one round trip). */
function counted(pool: PostgresPool): { pool: PostgresPool; statements: () => number } {
  let statements = 0;
  return {
    pool: {
      query: (text, values) => {
        statements += 1;
        return pool.query(text, values);
      },
    },
    statements: () => statements,
  };
}

/**
 * A fresh claim on `store` once it listens (a watch that listens opens the connection; it
 * stays a while after), with the time its request was sent.
 */
async function listeningClaim(store: PostgresStore): Promise<{ key: string; token: string; sentAt: number }> {
  const warm = newKey();
  await store.watchStop(warm, held(await store.acquire(warm, 'fp', 20 * LEASE)).token, LEASE / 2);
  const key = newKey();
  const sentAt = Date.now();
  const { token } = held(await store.acquire(key, 'fp', 20 * LEASE));
  return { key, token, sentAt };
}

describe.skipIf(!hasPostgres)('PostgresStore on a real PostgreSQL', () => {
  const suite = usePostgresSuite();

  it('runs a first attempt in acquire + renewal + complete statements, and replays in one', async () => {
    const { pool, statements } = counted(suite.pool);
    const store = suite.open({ pool });
    await store.get(newKey()); // the tables exist now
    const key = newKey();
    const before = statements();
    const token = held(await store.acquire(key, 'fp', LEASE)).token;
    await store.renew(key, token, LEASE);
    await store.complete(key, token, JSON.stringify('answer'), TTL);
    expect(statements() - before).toBe(3);

    const replayAt = statements();
    const replay = await runOnce(store, key, async () => 'never', { fingerprint: 'fp' });
    expect(replay).toEqual({ value: 'answer', replayed: true });
    expect(statements() - replayAt).toBe(1);
  });

  it('appends and reads an answer in one statement each', async () => {
    const { pool, statements } = counted(suite.pool);
    const store = suite.open({ pool });
    const key = newKey();
    const { token, generation } = await claimGeneration(store, key, 10 * LEASE);
    const before = statements();
    await store.append(key, token, { offset: 0, data: bytes('hello'), head: 'h', leaseMs: LEASE, retainBytes: 64 });
    await store.append(key, token, { offset: 5, data: bytes(' world'), retainBytes: 64 });
    const { log } = await store.read(key, { generation, offset: 0 });
    expect(new TextDecoder().decode(log?.data)).toBe('hello world');
    expect(statements() - before).toBe(3);
  });

  it('measures leases by PostgreSQL’s clock: a process whose clock is an hour ahead neither takes over nor sees a lapsed lease', async () => {
    const store = suite.open();
    const key = newKey();
    const holder = held(await store.acquire(key, 'fp', 10 * LEASE));
    vi.useFakeTimers({ now: Date.now() + 3_600_000, toFake: ['Date'] });
    try {
      const ahead = suite.open();
      const record = found(await ahead.acquire(key, 'fp', LEASE));
      expect(record).toMatchObject({ state: 'processing', token: holder.token });
      // Reported in the caller's clock: the lease ends about 10 leases from the caller's now.
      const left = record.state === 'processing' ? record.leaseExpiresAt - Date.now() : 0;
      expect(left).toBeGreaterThan(8 * LEASE);
      expect(left).toBeLessThanOrEqual(10 * LEASE);
    } finally {
      vi.useRealTimers();
    }
  });

  it('watches a fresh claim for a stop without a statement once it listens, and hears a stop from another instance', async () => {
    const { pool, statements } = counted(suite.pool);
    // The pool's own way to open the listening connection, which the counting pool has not.
    const { Client, options } = suite.pool as unknown as Required<PostgresPool>;
    const store = suite.open({ pool: { ...pool, Client, options }, pollIntervalMs: 60_000 });
    const stopper = suite.open(); // another instance
    const { key, token, sentAt } = await listeningClaim(store);
    await sleep(LEASE / 3); // the claim's own NOTIFY heard, as a run's watch begins a flush window later
    const before = statements();
    const watching = store.watchStop(key, token, 20 * LEASE, undefined, sentAt);
    await sleep(LEASE / 2);
    expect(statements() - before).toBe(0); // no look: nothing could be pending
    expect(await stopper.stop(key)).toBe('stopping');
    expect(await watching).toBe(true);
  });

  it('still hears a stop made between a claim and its watch, on another instance', async () => {
    const store = suite.open({ pollIntervalMs: 60_000 });
    const stopper = suite.open(); // another instance
    const { key, token, sentAt } = await listeningClaim(store);
    expect(await stopper.stop(key)).toBe('stopping');
    await sleep(LEASE / 3); // its NOTIFY reached the holder's store before the watch began
    expect(await store.watchStop(key, token, 20 * LEASE, undefined, sentAt)).toBe(true);
  });

  it('wakes a waiter and a reader on another instance (another pool) through NOTIFY', async () => {
    const other = new pg.Pool({ connectionString: suite.server.url, max: 4 });
    other.on('error', () => {});
    const b = suite.open({ pool: other, pollIntervalMs: 60_000 });
    try {
      const a = suite.open({ pollIntervalMs: 60_000 });
      const key = newKey();
      const { token, generation } = await claimGeneration(a, key, 20 * LEASE);
      const reading = b.read(key, { generation, offset: 0 }, { waitMs: 20 * LEASE });
      const waiting = b.wait(key, 20 * LEASE);
      await sleep(LEASE / 2);
      const appendedAt = Date.now();
      await a.append(key, token, { offset: 0, data: bytes('hi'), head: 'h' });
      expect((await reading).log).toMatchObject({ length: 2 });
      expect(Date.now() - appendedAt).toBeLessThan(LEASE);
      const completedAt = Date.now();
      await a.complete(key, token, 'answer', TTL);
      expect(await waiting).toMatchObject({ state: 'completed', result: 'answer' });
      expect(Date.now() - completedAt).toBeLessThan(LEASE);
    } finally {
      await b.close(); // it ends its listening connection
      await other.end();
    }
  });

  it('removes dead records, their logs and their steps in bounded passes', async () => {
    const table = `sweep_${Date.now()}`;
    const store = suite.open({ table, sweepLimit: 2, sweepIntervalMs: 0 });
    for (let index = 0; index < 5; index += 1) {
      const key = newKey();
      const { token } = await claimGeneration(store, key, LEASE);
      await store.append(key, token, { offset: 0, data: bytes('answer'), head: 'h' });
      await store.finishStep(key, token, 'step', '{"v":1}');
      await store.complete(key, token, 'answer', 50);
    }
    const live = newKey();
    const { token } = await claimGeneration(store, live, 20 * LEASE);
    await store.finishStep(live, token, 'step', '{"v":1}');
    await sleep(150);
    const rows = async (): Promise<number[]> => {
      const records = await suite.pool.query(`SELECT count(*)::int AS n FROM ${table}`);
      const chunks = await suite.pool.query(`SELECT count(*)::int AS n FROM ${table}_log`);
      const steps = await suite.pool.query(`SELECT count(*)::int AS n FROM ${table}_steps`);
      return [records.rows[0].n, chunks.rows[0].n, steps.rows[0].n];
    };
    expect(await rows()).toEqual([6, 5, 6]);
    expect(await store.sweep()).toEqual({ records: 2, logs: 0 });
    expect(await store.sweep()).toEqual({ records: 2, logs: 0 });
    expect(await store.sweep()).toEqual({ records: 1, logs: 0 });
    expect(await store.sweep()).toEqual({ records: 0, logs: 0 });
    expect(await rows()).toEqual([1, 0, 1]);
    expect(await store.get(live)).toMatchObject({ state: 'processing' });
    expect(await store.startStep(live, token, 'step')).toEqual({ state: 'finished', outcome: '{"v":1}' });
  });

  it('sweeps along an index, never the whole table', async () => {
    const table = `plan_${Date.now()}`;
    suite.open({ table });
    await suite.pool.query(postgresStoreSchema(table));
    // Many live rows and a few dead ones: the sweep must go straight to the dead.
    await suite.pool.query(
      `INSERT INTO ${table} (key_digest, key, state, fingerprint, created_at, generation, runs, expires_at)
       SELECT sha256(convert_to('k' || i, 'UTF8')), 'k' || i, 'completed', 'fp', 0, 1, 1, CASE WHEN i <= 3 THEN 0 ELSE 9e15 END FROM generate_series(1, 20000) i`,
    );
    await suite.pool.query(
      `INSERT INTO ${table}_steps (key_digest, step, record_created_at, outcome)
       SELECT sha256(convert_to('k' || i, 'UTF8')), 'step', 0, '{}' FROM generate_series(1, 20000) i`,
    );
    await suite.pool.query(`ANALYZE ${table}`);
    await suite.pool.query(`ANALYZE ${table}_steps`);
    const { sweepSql } = await import('../../src/postgres/sql/sweep.js');
    const { tablesOf } = await import('../../src/postgres/sql/tables.js');
    const plan = await suite.pool.query(`EXPLAIN ${sweepSql(tablesOf(table)).replace(/\$1::int/g, '500')}`);
    const text = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).toMatch(new RegExp(`Index Scan using ${table}_expires_at`));
    expect(text).toMatch(new RegExp(`Index Scan using ${table}_log_expires_at`));
    expect(text).not.toMatch(new RegExp(`Seq Scan on ${table}\\b`));
    expect(text).not.toMatch(new RegExp(`Seq Scan on ${table}_steps\\b`));
  });

  it('with createTables: false, fails as a permanent store error until the exported schema is run, then works', async () => {
    const table = `migrated_${Date.now()}`;
    const store = suite.open({ table, createTables: false });
    const error = await store.acquire(newKey(), 'fp', LEASE).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PostgresStoreError);
    expect(error).toMatchObject({ code: 'store-failed' });

    await suite.pool.query(postgresStoreSchema(table));
    await suite.pool.query(postgresStoreSchema(table)); // a migration run twice changes nothing
    expect(held(await store.acquire(newKey(), 'fp', LEASE))).toMatchObject({ acquired: true, runs: 1 });
  });

  it('counts calls avoided on a table made before markAvoided existed: the schema adds its column', async () => {
    const table = `older_${Date.now()}`;
    await suite.pool.query(postgresStoreSchema(table));
    await suite.pool.query(`ALTER TABLE ${table} DROP COLUMN avoided_generation`); // as an older version made it
    const store = suite.open({ table });
    const key = newKey();
    const holder = held(await store.acquire(key, 'fp', LEASE));
    expect(await store.complete(key, holder.token, 'answer', TTL)).toBe('written');
    expect(await store.markAvoided(key)).toMatchObject({ state: 'completed', result: 'answer' });
    expect(await store.markAvoided(key)).toBeNull();
  });

  it('keeps its tables in a schema of its own, and wakes waiters there through NOTIFY', async () => {
    await suite.pool.query('CREATE SCHEMA IF NOT EXISTS app');
    const store = suite.open({ table: 'app.intents', pollIntervalMs: 60_000 });
    const key = newKey();
    const holder = held(await store.acquire(key, 'fp', 20 * LEASE));
    const waiting = store.wait(key, 20 * LEASE);
    await sleep(LEASE / 2);
    const completedAt = Date.now();
    await store.complete(key, holder.token, 'answer', TTL);
    expect(await waiting).toMatchObject({ state: 'completed' });
    expect(Date.now() - completedAt).toBeLessThan(LEASE);
    const { rows } = await suite.pool.query('SELECT count(*)::int AS n FROM app.intents_log WHERE generation = -1');
    expect(rows[0].n).toBe(0); // the log's table sits beside the records, in the same schema
  });

  it('makes its tables again when they disappear under it (a restored or crashed database)', async () => {
    const table = `lost_${Date.now()}`;
    const store = suite.open({ table });
    held(await store.acquire(newKey(), 'fp', LEASE));
    await suite.pool.query(`DROP TABLE ${table}, ${table}_log`);
    expect(held(await store.acquire(newKey(), 'fp', LEASE))).toMatchObject({ runs: 1 });
  });

  it('creates its tables once, even when several instances start at the same moment', async () => {
    const table = `fresh_${Date.now()}`;
    const stores = Array.from({ length: 4 }, () => suite.open({ table }));
    const claims = await Promise.all(stores.map((store) => store.acquire(newKey(), 'fp', LEASE)));
    expect(claims.every((claim) => claim.acquired)).toBe(true);
  });

  it('gives one claim to many instances racing for one new intent', async () => {
    const stores = Array.from({ length: 8 }, () => suite.open());
    await Promise.all(stores.map((store) => store.get(newKey())));
    const key = newKey();
    const results = await Promise.all(stores.map((store) => store.acquire(key, 'fp', 10 * LEASE)));
    expect(results.filter((result) => result.acquired)).toHaveLength(1);
  });

  it('rejects bad arguments with a TypeError naming them, sending nothing', async () => {
    const { pool, statements } = counted(suite.pool);
    const store = new PostgresStore({ pool });
    await expect(store.acquire('', 'fp', LEASE)).rejects.toThrow(/`key`/);
    await expect(store.acquire(newKey(), 'fp', -1)).rejects.toThrow(/`leaseMs`/);
    await expect(store.read(newKey(), { generation: 1, offset: -1 })).rejects.toThrow(/`from`/);
    await expect(store.append(newKey(), 't', { offset: 0, data: 'x' as never, head: 'h' })).rejects.toThrow(/`data`/);
    expect(statements()).toBe(0);
    await store.close();
  });
});
