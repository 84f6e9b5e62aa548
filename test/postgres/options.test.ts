import { postgresStoreSchema } from 'answer-once/postgres';
import { describe, expect, it } from 'vitest';
import type { PostgresPool } from '../../src/postgres/client.js';
import { normalizePostgresStoreOptions } from '../../src/postgres/options.js';

const pool: PostgresPool = { query: async () => ({ rows: [] }) };

describe('normalizePostgresStoreOptions', () => {
  it('fills in the documented defaults', () => {
    expect(normalizePostgresStoreOptions({ pool })).toEqual({
      pool,
      table: 'answer_once',
      createTables: true,
      notifications: true,
      pollIntervalMs: 100,
      processingGraceMs: 60_000,
      sweepIntervalMs: 60_000,
      sweepLimit: 500,
    });
  });

  it('keeps given values', () => {
    const given = {
      pool,
      table: 'app.intents',
      createTables: false,
      notifications: false,
      pollIntervalMs: 20,
      processingGraceMs: 0,
      sweepIntervalMs: 0,
      sweepLimit: 1,
    };
    expect(normalizePostgresStoreOptions(given)).toEqual(given);
  });

  it('rejects something that is not a node-postgres pool, naming `pool`', () => {
    expect(() => normalizePostgresStoreOptions({ pool: {} as PostgresPool })).toThrow(/`pool` must be a node-postgres Pool/);
    expect(() => normalizePostgresStoreOptions(undefined as never)).toThrow(TypeError);
  });

  it('rejects a table name that is not a plain identifier, naming `table` (it is spliced into SQL)', () => {
    for (const table of ['', 'Answer', 'a;drop table x', 'a.b.c', '"quoted"', `a${'b'.repeat(48)}`]) {
      expect(() => normalizePostgresStoreOptions({ pool, table })).toThrow(/`table` must be/);
    }
  });

  it('rejects bad switches and durations, naming each', () => {
    expect(() => normalizePostgresStoreOptions({ pool, notifications: 'yes' as never })).toThrow(/`notifications`/);
    expect(() => normalizePostgresStoreOptions({ pool, createTables: 1 as never })).toThrow(/`createTables`/);
    expect(() => normalizePostgresStoreOptions({ pool, pollIntervalMs: 0 })).toThrow(/`pollIntervalMs`/);
    expect(() => normalizePostgresStoreOptions({ pool, processingGraceMs: -1 })).toThrow(/`processingGraceMs`/);
    expect(() => normalizePostgresStoreOptions({ pool, sweepIntervalMs: 2 ** 31 })).toThrow(/`sweepIntervalMs`/);
    expect(() => normalizePostgresStoreOptions({ pool, sweepLimit: 0 })).toThrow(/`sweepLimit`/);
  });
});

describe('postgresStoreSchema', () => {
  it('creates the records table, the log table and their indexes, idempotently, under the given name', () => {
    const sql = postgresStoreSchema('app.intents');
    expect(sql).toMatch(/CREATE TABLE IF NOT EXISTS app\.intents \(/);
    expect(sql).toMatch(/CREATE TABLE IF NOT EXISTS app\.intents_log \(/);
    expect(sql).toMatch(/CREATE INDEX IF NOT EXISTS intents_expires_at ON app\.intents \(expires_at\)/);
    expect(sql).toMatch(/CREATE TABLE IF NOT EXISTS app\.intents_steps \(/); // the step journal (§ 15)
    expect(sql.match(/CREATE (TABLE|INDEX) IF NOT EXISTS/g)).toHaveLength(5);
    expect(sql).toMatch(/key_digest bytea PRIMARY KEY/); // a key of any length: its digest is indexed
    // The column continued generations add (§ 14.12): a 0.3 table gets it too.
    expect(sql).toMatch(/ALTER TABLE app\.intents ADD COLUMN IF NOT EXISTS continues bigint;/);
    expect(() => postgresStoreSchema('drop table x')).toThrow(/`table`/);
  });
});
