import { tableOption } from '../options.js';
import { keyDigest, type Tables, tablesOf } from './tables.js';

/**
 * The schema (PROTOCOL.md § 14.9 for the log's model). Times are epoch milliseconds of the
 * database's clock. A row is dead once `expires_at` has passed, whether or not the sweep
 * removed it yet: every statement reads through that.
 *
 * | column             | meaning                                                        |
 * | ------------------ | -------------------------------------------------------------- |
 * | `key_digest`       | SHA-256 of the key: the primary key (`tables.ts`, `keyDigest`) |
 * | `key`              | the intent's store key, whole (compared by every statement)    |
 * | `state`            | processing / completed / failed                                |
 * | `fingerprint`      | the request's fingerprint                                      |
 * | `token`            | the holder's fencing token (processing)                        |
 * | `lease_expires_at` | when another worker may take over (processing)                 |
 * | `created_at`       | the first claim of this intent                                 |
 * | `settled_at`       | completed or failed at                                         |
 * | `outcome`          | the result (completed) or error (failed), opaque               |
 * | `generation`       | the last claim's generation                                    |
 * | `continues`        | the earlier generation whose answer it continues (§ 14.12)     |
 * | `runs`             | claims since the record was created                            |
 * | `claimed_over`     | what the last claim replaced: processing (takeover) or failed  |
 * | `stop_requested`   | a stop was asked for this generation                           |
 * | `stop_at`          | where the first stop that named a position asked to end        |
 * | `expires_at`       | when the row is dead (lease + grace, or the settled TTL)       |
 * | `log_generation`   | the generation the log holds (null: no log)                    |
 * | `log_head`         | its head                                                       |
 * | `log_length`       | bytes appended to it                                           |
 * | `log_start`        | the first byte still kept (`retainBytes`)                      |
 * | `log_expires_at`   | after a settle, when the log lapses; null: with the record     |
 * | `avoided_generation` | the generation a model call avoided was counted for (completed) |
 *
 * The log's bytes are rows of `<table>_log`, one per append: `(key_digest, generation,
 * start_offset, data)`, so a read from an offset is an index range.
 *
 * 0.3's tables were keyed by the whole key, which fails for a key past 2,704 bytes: the
 * schema upgrades them in place ({@link upgradeOf}), so running it again is the migration.
 *
 * The step journal (PROTOCOL.md § 15) is rows of `<table>_steps`, one per step:
 * `(key_digest, step, record_created_at, outcome)` — the SHA-256 of the intent's key, the
 * step ID, the `created_at` of the record it belongs to (a row of a record that died is
 * no step of one created anew), and the outcome (null: started without one).
 */
function schemaOf(tables: Tables): string {
  const { records, chunks, steps, recordsName, chunksName, stepsName } = tables;
  return `
CREATE TABLE IF NOT EXISTS ${records} (
  key_digest bytea PRIMARY KEY,
  key text NOT NULL,
  state text NOT NULL CHECK (state IN ('processing', 'completed', 'failed')),
  fingerprint text NOT NULL,
  token text,
  lease_expires_at bigint,
  created_at bigint NOT NULL,
  settled_at bigint,
  outcome text,
  generation bigint NOT NULL,
  continues bigint,
  runs integer NOT NULL,
  claimed_over text,
  stop_requested boolean NOT NULL DEFAULT false,
  stop_at bigint,
  expires_at bigint NOT NULL,
  log_generation bigint,
  log_head text,
  log_length bigint,
  log_start bigint,
  log_expires_at bigint,
  avoided_generation bigint
);
ALTER TABLE ${records} ADD COLUMN IF NOT EXISTS avoided_generation bigint;
ALTER TABLE ${records} ADD COLUMN IF NOT EXISTS continues bigint;
CREATE INDEX IF NOT EXISTS ${recordsName}_expires_at ON ${records} (expires_at);
CREATE INDEX IF NOT EXISTS ${recordsName}_log_expires_at ON ${records} (log_expires_at) WHERE log_expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS ${chunks} (
  key_digest bytea NOT NULL,
  generation bigint NOT NULL,
  start_offset bigint NOT NULL,
  data bytea NOT NULL,
  CONSTRAINT ${chunksName}_pkey PRIMARY KEY (key_digest, generation, start_offset)
);
CREATE TABLE IF NOT EXISTS ${steps} (
  key_digest bytea NOT NULL,
  step text NOT NULL,
  record_created_at bigint NOT NULL,
  outcome text,
  CONSTRAINT ${stepsName}_pkey PRIMARY KEY (key_digest, step)
);
${upgradeOf(tables)}
`.trim();
}

/**
 * Upgrades 0.3's tables, keyed by the whole key, in place: each row gets its key's digest,
 * which becomes the primary key (the chunks keep only the digest). A no-op on tables that
 * have `key_digest` already, so the schema stays idempotent. It rewrites both tables
 * under an exclusive lock: run it (the schema) when few requests are in flight.
 */
function upgradeOf({ records, chunks, recordsName, chunksName }: Tables): string {
  return `
DO $upgrade$ BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM pg_attribute WHERE attrelid = '${records}'::regclass AND attname = 'key_digest' AND NOT attisdropped
  ) THEN
    ALTER TABLE ${records} ADD COLUMN key_digest bytea;
    UPDATE ${records} SET key_digest = ${keyDigest('key')};
    ALTER TABLE ${records} DROP CONSTRAINT ${recordsName}_pkey, ALTER COLUMN key_digest SET NOT NULL,
      ADD CONSTRAINT ${recordsName}_pkey PRIMARY KEY (key_digest);
    ALTER TABLE ${chunks} ADD COLUMN key_digest bytea;
    UPDATE ${chunks} SET key_digest = ${keyDigest('key')};
    ALTER TABLE ${chunks} DROP CONSTRAINT ${chunksName}_pkey, DROP COLUMN key, ALTER COLUMN key_digest SET NOT NULL,
      ADD CONSTRAINT ${chunksName}_pkey PRIMARY KEY (key_digest, generation, start_offset);
  END IF;
END $upgrade$;`.trim();
}

/**
 * The SQL that creates the store's tables and indexes (idempotent: `IF NOT EXISTS`), for
 * a migration tool; `new PostgresStore({ pool })` runs the same on first use unless
 * `createTables: false`.
 *
 * @param table The store's `table` option. @default 'answer_once'
 *
 * @example
 * // a migration file
 * export const up = (pgm) => pgm.sql(postgresStoreSchema());
 */
export function postgresStoreSchema(table = 'answer_once'): string {
  return `${schemaOf(tablesOf(tableOption(table)))}\n`;
}

/** What the store runs on first use: the schema, serialised between processes by an advisory lock. */
export function createTablesSql(tables: Tables): string {
  return `BEGIN;\nSELECT pg_advisory_xact_lock(hashtext('answer-once:${tables.records}'));\n${schemaOf(tables)}\nCOMMIT;`;
}
