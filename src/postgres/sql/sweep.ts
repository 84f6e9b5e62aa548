import { CLOCK, type Tables } from './tables.js';

/**
 * $1 the most rows of each kind one pass removes
 *
 * One bounded pass of the sweep: up to $1 dead records (past `expires_at`) deleted with
 * their log chunks, and up to $1 lapsed logs of live records (a settled intent's log past
 * its linger) cleared with theirs. Each side is an index range (`expires_at`,
 * `log_expires_at`) in expiry order, never a table scan; rows another sweep holds are
 * skipped (`SKIP LOCKED`), so instances sweeping at once do not queue on each other.
 * Every other statement already treats a dead row as absent: the sweep only frees space.
 *
 * Returns `records` and `logs`: how many of each this pass removed.
 */
export function sweepSql({ records, chunks }: Tables): string {
  return `
WITH ${CLOCK},
dead AS (
  SELECT r.key FROM ${records} r, clock WHERE r.expires_at <= clock.now
  ORDER BY r.expires_at LIMIT $1::int FOR UPDATE OF r SKIP LOCKED
),
removed AS (DELETE FROM ${records} r USING dead WHERE r.key = dead.key RETURNING r.key),
removed_chunks AS (DELETE FROM ${chunks} c USING removed WHERE c.key = removed.key),
lapsed AS (
  SELECT r.key FROM ${records} r, clock WHERE r.log_expires_at <= clock.now AND r.expires_at > clock.now
  ORDER BY r.log_expires_at LIMIT $1::int FOR UPDATE OF r SKIP LOCKED
),
cleared AS (
  UPDATE ${records} r SET log_generation = NULL, log_head = NULL, log_length = NULL, log_start = NULL, log_expires_at = NULL
  FROM lapsed WHERE r.key = lapsed.key
  RETURNING r.key
),
cleared_chunks AS (DELETE FROM ${chunks} c USING cleared WHERE c.key = cleared.key)
SELECT (SELECT count(*) FROM removed) AS records, (SELECT count(*) FROM cleared) AS logs`;
}
