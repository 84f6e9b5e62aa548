/**
 * The names a store's SQL uses, derived once from its `table` option: the records table
 * itself, the log's chunks beside it (`<table>_log`), the indexes, and the NOTIFY channel.
 * `table` is a checked identifier (options.ts), so the names are spliced in unquoted.
 */
export interface Tables {
  /** One row per intent: its record and its log's head and extent. */
  readonly records: string;
  /** The log's bytes: one row per append. */
  readonly chunks: string;
  /** Bare names (an index lives in its table's schema). */
  readonly recordsName: string;
  readonly chunksName: string;
  /** The channel the writes `pg_notify` on and the store `LISTEN`s to. */
  readonly channel: string;
}

export function tablesOf(table: string): Tables {
  const dot = table.indexOf('.');
  const schema = dot < 0 ? '' : table.slice(0, dot + 1);
  const name = table.slice(dot + 1);
  return Object.freeze({
    records: table,
    chunks: `${schema}${name}_log`,
    recordsName: name,
    chunksName: `${name}_log`,
    channel: table,
  });
}

/**
 * `now`: the database's clock in epoch milliseconds, read once per statement
 * (`clock_timestamp()`, materialised so every part of the statement sees the same value).
 * Every time a store writes or compares is this one: the servers' clocks never matter.
 */
export const CLOCK = `clock AS MATERIALIZED (SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now)`;

/** The record's columns every statement that answers a record returns (record.ts decodes them). */
export const RECORD_COLUMNS =
  'r.state, r.fingerprint, r.token, r.lease_expires_at, r.created_at, r.settled_at, r.outcome, r.generation, r.runs, r.claimed_over, r.stop_requested, r.stop_at, r.avoided_generation';

/** Whether record `r`'s log is still there at `clock.now` (it lingers a while after a settle, then lapses). */
export const LOG_ALIVE = '(r.log_generation IS NOT NULL AND (r.log_expires_at IS NULL OR r.log_expires_at > clock.now))';
