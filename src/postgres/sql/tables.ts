/**
 * The names a store's SQL uses, derived once from its `table` option: the records table
 * itself, the log's chunks beside it (`<table>_log`), the step journal
 * (`<table>_steps`), the indexes, and the NOTIFY channel.
 * `table` is a checked identifier (options.ts), so the names are spliced in unquoted.
 */
export interface Tables {
  /** One row per intent: its record and its log's head and extent. */
  readonly records: string;
  /** The log's bytes: one row per append. */
  readonly chunks: string;
  /** The step journal: one row per step (`<table>_steps`). */
  readonly steps: string;
  /** Bare names (an index lives in its table's schema). */
  readonly recordsName: string;
  readonly chunksName: string;
  readonly stepsName: string;
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
    steps: `${schema}${name}_steps`,
    recordsName: name,
    chunksName: `${name}_log`,
    stepsName: `${name}_steps`,
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
  'r.state, r.fingerprint, r.token, r.lease_expires_at, r.created_at, r.settled_at, r.outcome, r.generation, r.continues, r.runs, r.claimed_over, r.stop_requested, r.stop_at, r.avoided_generation';

/**
 * How a table finds an intent's rows: by the SHA-256 digest of the intent's key (`bytea`,
 * 32 bytes, the `key_digest` column), never by the key itself. A btree index row holds at
 * most 2,704 bytes and the key holds the app's scope, which may be kilobytes (a JWT as the
 * session). Every table of the store keys its rows by `key_digest`; the records table also
 * keeps the whole key, and every statement compares it ({@link isRecordOf}), so a digest
 * collision can never answer with another intent's record — a table of an intent's parts
 * (the log's chunks) is reached only through its record.
 *
 *   INSERT INTO <table> (key_digest, …) VALUES (${keyDigest('$1')}, …)
 */
export const keyDigest = (param: string): string => `sha256(convert_to(${param}::text, 'UTF8'))`;

/** Whether record `alias` is the one of the key in `param`: found by its digest (the index), checked by the whole key. */
export const isRecordOf = (param: string, alias = 'r'): string =>
  `${alias}.key_digest = ${keyDigest(param)} AND ${alias}.key = ${param}::text`;

/** Whether record `r` is the live one of the key in $1: its record, not expired at `clock.now`. */
export const IS_LIVE = `${isRecordOf('$1')} AND r.expires_at > clock.now`;

/**
 * Whether record `r` is live and PROCESSING under token $2: the fencing check of every write
 * a holder makes, so a zombie's late write changes nothing.
 */
export const IS_HELD = `${IS_LIVE} AND r.state = 'processing' AND r.token = $2::text`;

/**
 * The outcome of a write whose CTE `written` returns a row for each row it wrote to the live
 * record at $1: `names[0]` when it wrote, `names[1]` when a live record was there but not
 * written (another token, or another state), `names[2]` when there is none.
 */
export const writeOutcome = (
  records: string,
  written: string,
  [wrote, live, none]: readonly [string, string, string],
): string => `SELECT CASE
  WHEN EXISTS (SELECT 1 FROM ${written}) THEN '${wrote}'
  WHEN EXISTS (SELECT 1 FROM ${records} r, clock WHERE ${IS_LIVE}) THEN '${live}'
  ELSE '${none}' END AS outcome`;

/** CTE `name`: the live record at $1 updated with `set` where `where` holds, a row returned for each write. */
export const updateLive = (records: string, name: string, set: string, where: string): string => `${name} AS (
  UPDATE ${records} r SET ${set}
  FROM clock
  WHERE ${where}
  RETURNING 1
)`;

/**
 * A whole statement: the live record at $1 updated with `set` where `where` holds; every
 * row it wrote wakes the key's listeners (once per payload in `wakes`), and it answers
 * `outcome` as {@link writeOutcome} names it, and `woken`.
 */
export const wokenUpdate = (
  { records, channel }: Tables,
  update: {
    readonly set: string;
    readonly where: string;
    readonly wakes: string | readonly string[];
    readonly outcomes: readonly [string, string, string];
  },
): string => `
WITH ${CLOCK},
${updateLive(records, 'written', update.set, update.where)},
woken AS (SELECT ${[update.wakes]
  .flat()
  .map((payload) => `pg_notify('${channel}', ${payload}::text)`)
  .join(', ')} FROM written)
${writeOutcome(records, 'written', update.outcomes)},
  (SELECT count(*) FROM woken) AS woken`;

/** Whether record `r`'s log is still there at `clock.now` (it lingers a while after a settle, then lapses). */
export const LOG_ALIVE = '(r.log_generation IS NOT NULL AND (r.log_expires_at IS NULL OR r.log_expires_at > clock.now))';

/**
 * `held`: the `created_at` of the record at $1 when it is live and PROCESSING under token
 * $2, with the row's share lock (a claim's UPDATE of it waits, or is seen and fences).
 */
export const HELD_FOR_STEP = (records: string): string => `held AS MATERIALIZED (
  SELECT r.created_at FROM ${records} r, clock
  WHERE ${IS_HELD}
  FOR SHARE OF r
)`;
