import { CLOCK, isRecordOf, keyDigest, RECORD_COLUMNS, type Tables } from './tables.js';

/**
 * $1 key · $2 fingerprint · $3 lease ms · $4 grace ms · $5 new token · $6 key's wake-up payload
 *
 * Claims the record when it is absent (or dead: past `expires_at`, not yet swept), FAILED,
 * or PROCESSING with a lease the database's clock says has expired — and only under the
 * same fingerprint. One statement: `INSERT … ON CONFLICT DO UPDATE … WHERE` takes the
 * row's lock, so of two concurrent claims exactly one writes and the other sees its row.
 *
 * The claim's generation is `max(now, previous + 1)`, so it grows even across a dead row;
 * `runs` counts claims since the record was created (1 on a new or dead row). The new
 * record starts without a stop, and a log beside it lives on with the record until the
 * new generation's first append replaces it. A claim that replaced a record (retry,
 * takeover) wakes the key's waiters.
 *
 * Returns one row: `claimed` true with the new record, or false with the record as it is.
 * No row at all only when the conflicting row was committed after this statement's
 * snapshot and did not let it claim: the caller runs it again (it then sees the row).
 */
export function acquireSql({ records, channel }: Tables): string {
  return `
WITH ${CLOCK},
claim AS (
  INSERT INTO ${records} AS r (key_digest, key, state, fingerprint, token, lease_expires_at, created_at, generation, runs, expires_at)
  SELECT ${keyDigest('$1')}, $1::text, 'processing', $2::text, $5::text, now + $3::bigint, now, now, 1, now + $3::bigint + $4::bigint FROM clock
  ON CONFLICT (key_digest) DO UPDATE SET
    key = excluded.key,
    state = 'processing',
    fingerprint = excluded.fingerprint,
    token = excluded.token,
    lease_expires_at = excluded.lease_expires_at,
    created_at = CASE WHEN r.expires_at <= excluded.created_at THEN excluded.created_at ELSE r.created_at END,
    settled_at = NULL,
    outcome = NULL,
    generation = GREATEST(excluded.generation, r.generation + 1),
    runs = CASE WHEN r.expires_at <= excluded.created_at THEN 1 ELSE r.runs + 1 END,
    claimed_over = CASE WHEN r.expires_at <= excluded.created_at THEN NULL ELSE r.state END,
    stop_requested = false,
    stop_at = NULL,
    expires_at = excluded.expires_at,
    log_generation = CASE
      WHEN r.expires_at <= excluded.created_at OR r.log_expires_at <= excluded.created_at THEN NULL
      ELSE r.log_generation END,
    log_expires_at = NULL
  WHERE r.expires_at <= excluded.created_at
    OR (r.key = excluded.key AND r.fingerprint = excluded.fingerprint
      AND (r.state = 'failed' OR (r.state = 'processing' AND r.lease_expires_at <= excluded.created_at)))
  RETURNING ${RECORD_COLUMNS}
),
woken AS (SELECT pg_notify('${channel}', $6::text) FROM claim r WHERE r.claimed_over IS NOT NULL)
SELECT true AS claimed, clock.now, ${RECORD_COLUMNS} FROM claim r, clock WHERE (SELECT count(*) FROM woken) >= 0
UNION ALL
SELECT false, clock.now, ${RECORD_COLUMNS} FROM ${records} r, clock
WHERE ${isRecordOf('$1')} AND NOT EXISTS (SELECT 1 FROM claim)`;
}
