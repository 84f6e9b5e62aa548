import { CLOCK, HELD_FOR_STEP, IS_LIVE, keyDigest, type Tables } from './tables.js';

/**
 * $1 key · $2 token · $3 step ID · $4 restart an unfinished step (boolean)
 *
 * The step journal (PROTOCOL.md § 15) is rows of `<table>_steps`, one per step, keyed by
 * the digest of the intent's key (`keyDigest`) and the step ID, reached only through the
 * intent's record (`isRecordOf`: a digest collision never reads another intent's steps); each row carries the `created_at` of the
 * record it belongs to, so a row of a record that died and was created anew is no step of
 * the new one (it is replaced when the new record's run writes the step, and swept with
 * the key). The holder's check takes the record row's share lock: a takeover's claim
 * waits for this statement, or this statement sees the claim and is fenced.
 *
 * Only under this very token: when the step is finished, answers `finished` and its
 * outcome; when it has no row (or only a dead record's), or `$4` and no outcome, records
 * it started (`started`); otherwise `unfinished`. `fenced` / `gone` as every fenced write.
 */
export function startStepSql({ records, steps }: Tables): string {
  return `
WITH ${CLOCK},
${HELD_FOR_STEP(records)},
found AS MATERIALIZED (
  SELECT s.outcome FROM ${steps} s, held
  WHERE s.key_digest = ${keyDigest('$1')} AND s.step = $3::text AND s.record_created_at = held.created_at
),
started AS (
  INSERT INTO ${steps} AS s (key_digest, step, record_created_at, outcome)
  SELECT ${keyDigest('$1')}, $3::text, held.created_at, NULL FROM held
  WHERE NOT EXISTS (SELECT 1 FROM found WHERE found.outcome IS NOT NULL)
    AND ($4::boolean OR NOT EXISTS (SELECT 1 FROM found))
  ON CONFLICT (key_digest, step) DO UPDATE SET record_created_at = excluded.record_created_at, outcome = NULL
  WHERE s.record_created_at <> excluded.record_created_at OR s.outcome IS NULL
  RETURNING 1
)
SELECT CASE
  WHEN EXISTS (SELECT 1 FROM started) THEN 'started'
  WHEN EXISTS (SELECT 1 FROM found WHERE found.outcome IS NOT NULL) THEN 'finished'
  WHEN EXISTS (SELECT 1 FROM held) THEN 'unfinished'
  WHEN EXISTS (SELECT 1 FROM ${records} r, clock WHERE ${IS_LIVE}) THEN 'fenced'
  ELSE 'gone' END AS state,
  (SELECT found.outcome FROM found) AS outcome`;
}
