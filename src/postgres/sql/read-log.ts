import { CLOCK, IS_LIVE, keyDigest, LOG_ALIVE, RECORD_COLUMNS, type Tables } from './tables.js';

/**
 * $1 key · $2 from generation (null: none) · $3 from offset
 *
 * The record and its log in one statement, so one snapshot (PROTOCOL.md § 14.9 read):
 * the log's bytes from the offset when `from` names the log's generation (capped at its
 * length, and never before its first kept byte), else from the first byte kept. The
 * chunks read are an index range: from the one holding the offset on. No live record:
 * no log either (it goes with its record).
 *
 * Always one row: `now`, the record's columns (null when none), and the log's
 * `log_generation` (null when none), `log_head`, `log_length`, `log_offset`, `log_data`.
 */
export function readLogSql({ records, chunks }: Tables): string {
  return `
WITH ${CLOCK},
rec AS MATERIALIZED (
  SELECT ${RECORD_COLUMNS}, CASE WHEN ${LOG_ALIVE} THEN r.log_generation END AS log_generation,
    r.log_head, r.log_length, r.log_start
  FROM ${records} r, clock
  WHERE ${IS_LIVE}
),
pos AS MATERIALIZED (
  SELECT rec.log_generation AS g, CASE WHEN rec.log_generation = $2::bigint
    THEN GREATEST(LEAST($3::bigint, rec.log_length), rec.log_start) ELSE rec.log_start END AS at
  FROM rec WHERE rec.log_generation IS NOT NULL
),
bytes AS (
  SELECT string_agg(
    CASE WHEN c.start_offset < pos.at THEN substring(c.data FROM (pos.at - c.start_offset + 1)::int) ELSE c.data END,
    ''::bytea ORDER BY c.start_offset) AS data
  FROM ${chunks} c, pos
  WHERE c.key_digest = ${keyDigest('$1')} AND c.generation = pos.g
    AND c.start_offset >= COALESCE((
      SELECT max(f.start_offset) FROM ${chunks} f
      WHERE f.key_digest = ${keyDigest('$1')} AND f.generation = pos.g AND f.start_offset <= pos.at), 0)
    AND c.start_offset + octet_length(c.data) > pos.at
)
SELECT clock.now, r.*, pos.at AS log_offset, COALESCE((SELECT data FROM bytes), ''::bytea) AS log_data
FROM clock LEFT JOIN rec r ON true LEFT JOIN pos ON true`;
}
