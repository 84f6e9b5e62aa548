import { CLOCK, IS_LIVE, isRecordOf, keyDigest, LOG_ALIVE, type Tables } from './tables.js';

/**
 * $1 key · $2 token · $3 offset · $4 bytes · $5 head (null: none given) · $6 retainBytes
 * (null: keep all) · $7 lease ms (null: leave the lease) · $8 grace ms · $9 the key's
 * log wake-up payload · $10 the generation it continues (null: none)
 *
 * One append of the holder's generation (PROTOCOL.md § 14.9), fenced like settle: only
 * while the record is PROCESSING under this very token (an expired lease nobody took over
 * still holds); the row is locked (`FOR UPDATE`) for the statement, so appends of one key
 * are serialised. The log appended to is the record's answer generation's: the one it
 * continues once it does (PROTOCOL.md § 14.12), else $10 — a first continuation, which
 * needs that generation's log, as long as `offset`, and then sets `continues` — else its
 * own. `offset` must equal the log's length for that generation — 0
 * when the log is of an older generation or absent, which then needs the head and is
 * replaced (every older chunk deleted). Then: the bytes as one chunk; with retainBytes,
 * the oldest chunks deleted while more than that many bytes are kept and more than one
 * chunk remains (`log_start` moves to the first kept); with a lease, the lease renewed and
 * the row's life extended. Readers everywhere are woken by a NOTIFY on the log's payload
 * (never the record's: the holder's watchStop sleeps on).
 *
 * Returns `outcome` — `ok`, `fenced`, `offset`, `head` (a first append without one) or
 * null (no live record: gone) — and, when `ok`, the log's `length` and `stop_requested`.
 */
export function appendSql({ records, chunks, channel }: Tables): string {
  return `
WITH ${CLOCK},
cur AS MATERIALIZED (
  SELECT r.state, r.token, r.stop_requested, r.log_start,
    COALESCE(r.continues, $10::bigint, r.generation) AS generation,
    $10::bigint IS NOT NULL AND r.continues IS NULL AS continuing,
    CASE WHEN r.log_generation = COALESCE(r.continues, $10::bigint, r.generation) AND ${LOG_ALIVE}
      THEN r.log_length ELSE -1 END AS length
  FROM ${records} r, clock
  WHERE ${IS_LIVE}
  FOR UPDATE OF r
),
verdict AS MATERIALIZED (
  SELECT cur.*, cur.length = -1 AS opening, CASE
    WHEN cur.state <> 'processing' OR cur.token IS DISTINCT FROM $2::text THEN 'fenced'
    WHEN $10::bigint IS NOT NULL AND $10::bigint <> cur.generation THEN 'offset'
    WHEN cur.length = -1 AND (cur.continuing OR $3::bigint <> 0) THEN 'offset'
    WHEN cur.length = -1 AND $5::text IS NULL THEN 'head'
    WHEN cur.length <> -1 AND $3::bigint <> cur.length THEN 'offset'
    ELSE 'ok' END AS outcome
  FROM cur
),
ok AS MATERIALIZED (
  SELECT v.*, $3::bigint + octet_length($4::bytea) AS new_length,
    CASE WHEN v.opening THEN 0 ELSE v.log_start END AS base
  FROM verdict v WHERE v.outcome = 'ok'
),
wiped AS (DELETE FROM ${chunks} c USING ok WHERE ok.opening AND c.key_digest = ${keyDigest('$1')}),
inserted AS (
  INSERT INTO ${chunks} (key_digest, generation, start_offset, data)
  SELECT ${keyDigest('$1')}, ok.generation, $3::bigint, $4::bytea FROM ok WHERE octet_length($4::bytea) > 0
),
candidates AS (
  SELECT c.start_offset AS s FROM ${chunks} c, ok
  WHERE $6::bigint IS NOT NULL AND NOT ok.opening AND c.key_digest = ${keyDigest('$1')} AND c.generation = ok.generation
    AND c.start_offset >= ok.new_length - $6::bigint
  UNION ALL
  SELECT $3::bigint FROM ok WHERE octet_length($4::bytea) BETWEEN 1 AND $6::bigint
),
kept AS MATERIALIZED (
  SELECT CASE WHEN $6::bigint IS NULL THEN ok.base ELSE COALESCE(
    (SELECT min(s) FROM candidates),
    CASE WHEN octet_length($4::bytea) > 0 THEN $3::bigint END,
    (SELECT max(c.start_offset) FROM ${chunks} c WHERE NOT ok.opening AND c.key_digest = ${keyDigest('$1')} AND c.generation = ok.generation),
    ok.base) END AS start
  FROM ok
),
trimmed AS (
  DELETE FROM ${chunks} c USING ok, kept
  WHERE NOT ok.opening AND c.key_digest = ${keyDigest('$1')} AND c.generation = ok.generation AND c.start_offset < kept.start
),
updated AS (
  UPDATE ${records} r SET
    log_generation = ok.generation,
    continues = CASE WHEN ok.continuing THEN ok.generation ELSE r.continues END,
    log_head = CASE WHEN ok.opening THEN $5::text ELSE r.log_head END,
    log_length = ok.new_length,
    log_start = kept.start,
    log_expires_at = NULL,
    lease_expires_at = CASE WHEN $7::bigint IS NULL THEN r.lease_expires_at ELSE clock.now + $7::bigint END,
    expires_at = CASE WHEN $7::bigint IS NULL THEN r.expires_at ELSE clock.now + $7::bigint + $8::bigint END
  FROM ok, kept, clock
  WHERE ${isRecordOf('$1')}
  RETURNING r.log_length
),
woken AS (SELECT pg_notify('${channel}', $9::text) FROM updated)
SELECT (SELECT outcome FROM verdict) AS outcome, (SELECT log_length FROM updated) AS length,
  (SELECT stop_requested FROM verdict) AS stop_requested, (SELECT count(*) FROM woken) AS woken`;
}
