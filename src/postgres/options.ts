import { booleanOption, hasMethods, invalidOption, numberOption, optionsObject, timerOption } from '../core/options.js';
import type { PostgresPool } from './client.js';

/** Options of `new PostgresStore(options)`. */
export interface PostgresStoreOptions {
  /**
   * A node-postgres pool (`new pg.Pool({ connectionString })`), or any pool with its API.
   * The store never ends, reconfigures or holds it (each statement borrows a connection
   * for itself alone), so any `max` works, `1` included; give it an `'error'` listener.
   * With `notifications: true` the store `LISTEN`s on one connection of its own besides
   * the pool's, opened like theirs (`pool.Client`, `pool.options`) while requests wait.
   */
  pool: PostgresPool;

  /**
   * The records table, optionally schema-qualified (`app.answer_once`); the log's bytes
   * go to `<table>_log` beside it, and wake-ups to the NOTIFY channel of the same name.
   * A lower-case identifier of up to 48 characters (each part).
   * @default 'answer_once'
   */
  table?: string;

  /**
   * Create the tables and indexes on first use (`CREATE … IF NOT EXISTS`, serialised
   * between processes by an advisory lock), and again when a statement finds them gone (a
   * restored database). Turn it off when a migration tool owns the schema: run
   * `postgresStoreSchema(table)` there.
   * @default true
   */
  createTables?: boolean;

  /**
   * Wake waiting requests with `LISTEN/NOTIFY` on one connection of the store's own, open
   * while requests wait and ended 5 s after the last one. Turn it off
   * where NOTIFY does not reach the store: behind a pooler in transaction mode
   * (PgBouncer, Supavisor, RDS Proxy) or over an HTTP/WebSocket serverless driver. Then
   * every wait polls each `pollIntervalMs`, which is correct on its own, only slower.
   * @default true
   */
  notifications?: boolean;

  /**
   * How often a waiting `wait`, `read` or `watchStop` looks again when it cannot be
   * notified: with `notifications: false`, or while the listening connection is down.
   * @default 100
   */
  pollIntervalMs?: number;

  /**
   * How long a PROCESSING record outlives its lease before it is dead. During the grace a
   * retry finds the record, takes it over (`takeover: true`, `createdAt` kept) and a
   * request with another body still gets 422 instead of running.
   * @default 60_000
   */
  processingGraceMs?: number;

  /**
   * How often the store removes dead records and lapsed logs, in milliseconds (one
   * bounded pass per tick, on a timer that does not keep the process alive). `0`: never
   * on a timer — call `store.sweep()` yourself (a cron job on serverless platforms).
   * @default 60_000
   */
  sweepIntervalMs?: number;

  /**
   * The most records (and, apart, lapsed logs) one sweep pass removes.
   * @default 500
   */
  sweepLimit?: number;
}

/** Options with every default filled in. */
export interface NormalizedPostgresStoreOptions {
  readonly pool: PostgresPool;
  readonly table: string;
  readonly createTables: boolean;
  readonly notifications: boolean;
  readonly pollIntervalMs: number;
  readonly processingGraceMs: number;
  readonly sweepIntervalMs: number;
  readonly sweepLimit: number;
}

/** The defaults of {@link PostgresStoreOptions}. */
const POSTGRES_STORE_DEFAULTS = Object.freeze({
  table: 'answer_once',
  createTables: true,
  notifications: true,
  pollIntervalMs: 100,
  processingGraceMs: 60_000,
  sweepIntervalMs: 60_000,
  sweepLimit: 500,
});

const LIBRARY = 'answer-once/postgres';

/** A table name the store splices into its SQL unquoted: an identifier, optionally schema-qualified. */
const TABLE_PATTERN = /^([a-z_][a-z0-9_]{0,47}\.)?[a-z_][a-z0-9_]{0,47}$/;

/** The table option, checked: an identifier the store splices into its SQL. */
export function tableOption(value: unknown): string {
  if (typeof value !== 'string' || !TABLE_PATTERN.test(value)) {
    invalidOption('table', 'a lower-case identifier, optionally schema-qualified (`schema.table`)', value, LIBRARY);
  }
  return value;
}

/** Fills in defaults and rejects bad options with a `TypeError` naming the option. */
export function normalizePostgresStoreOptions(options: PostgresStoreOptions): NormalizedPostgresStoreOptions {
  optionsObject(options, 'PostgresStore options `{ pool }`', false, LIBRARY);
  const { pool } = options;
  if (!hasMethods(pool, ['query'])) invalidOption('pool', 'a node-postgres Pool (new pg.Pool(…))', pool, LIBRARY);
  const defaults = POSTGRES_STORE_DEFAULTS;
  return Object.freeze({
    pool,
    table: tableOption(options.table ?? defaults.table),
    createTables: booleanOption(options.createTables ?? defaults.createTables, 'createTables', LIBRARY),
    notifications: booleanOption(options.notifications ?? defaults.notifications, 'notifications', LIBRARY),
    pollIntervalMs: timerOption(options.pollIntervalMs ?? defaults.pollIntervalMs, 'pollIntervalMs', 1, LIBRARY),
    processingGraceMs: timerOption(options.processingGraceMs ?? defaults.processingGraceMs, 'processingGraceMs', 0, LIBRARY),
    sweepIntervalMs: timerOption(options.sweepIntervalMs ?? defaults.sweepIntervalMs, 'sweepIntervalMs', 0, LIBRARY),
    sweepLimit: numberOption(options.sweepLimit ?? defaults.sweepLimit, 'sweepLimit', { min: 1, max: 100_000 }, LIBRARY),
  });
}
