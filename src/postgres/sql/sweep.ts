import { CLOCK, type Tables } from './tables.js';

/**
 * $1 the most rows of each kind one pass removes
 *
 * One bounded pass of the sweep: up to $1 dead records (past `expires_at`) deleted with
 * their log chunks and their steps, and up to $1 lapsed logs of live records (a settled intent's log past
 * its linger) cleared with theirs. Each side walks an index (`expires_at`,
 * `log_expires_at`) in expiry order and then reaches the rows by their keys (`= ANY`, the
 * primary keys' indexes), never scanning a table; rows another sweep holds are skipped
 * (`SKIP LOCKED`), so instances sweeping at once do not queue on each other. Every other
 * statement already treats a dead row as absent: the sweep only frees space.
 *
 * Returns `records` and `logs`: how many of each this pass removed.
 */
export function sweepSql({ records, chunks, steps }: Tables): string {
  return `
WITH ${CLOCK},
dead AS MATERIALIZED (
  SELECT array_agg(key_digest) AS keys FROM (
    SELECT r.key_digest FROM ${records} r WHERE r.expires_at <= (SELECT now FROM clock)
    ORDER BY r.expires_at LIMIT $1::int FOR UPDATE OF r SKIP LOCKED) picked
),
removed AS (DELETE FROM ${records} r WHERE r.key_digest = ANY ((SELECT keys FROM dead)::bytea[]) RETURNING 1),
removed_chunks AS (DELETE FROM ${chunks} c WHERE c.key_digest = ANY ((SELECT keys FROM dead)::bytea[])),
removed_steps AS (DELETE FROM ${steps} s WHERE s.key_digest = ANY ((SELECT keys FROM dead)::bytea[])),
lapsed AS MATERIALIZED (
  SELECT array_agg(key_digest) AS keys FROM (
    SELECT r.key_digest FROM ${records} r
    WHERE r.log_expires_at <= (SELECT now FROM clock) AND r.expires_at > (SELECT now FROM clock)
    ORDER BY r.log_expires_at LIMIT $1::int FOR UPDATE OF r SKIP LOCKED) picked
),
cleared AS (
  UPDATE ${records} r SET log_generation = NULL, log_head = NULL, log_length = NULL, log_start = NULL, log_expires_at = NULL
  WHERE r.key_digest = ANY ((SELECT keys FROM lapsed)::bytea[])
  RETURNING 1
),
cleared_chunks AS (DELETE FROM ${chunks} c WHERE c.key_digest = ANY ((SELECT keys FROM lapsed)::bytea[]))
SELECT (SELECT count(*) FROM removed) AS records, (SELECT count(*) FROM cleared) AS logs`;
}
