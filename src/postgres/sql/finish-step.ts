import { CLOCK, HELD_FOR_STEP, keyDigest, type Tables, writeOutcome } from './tables.js';

/**
 * $1 key · $2 token · $3 step ID · $4 outcome
 *
 * Records the step's outcome (`start-step.ts` for the table) unless it already has one
 * for this record — a recorded outcome is never replaced — only under this very token,
 * with the record row's share lock held (a takeover's claim and this write are ordered).
 *
 * Returns `written`, `fenced` (a live record under another token or state) or `gone`.
 */
export function finishStepSql({ records, steps }: Tables): string {
  return `
WITH ${CLOCK},
${HELD_FOR_STEP(records)},
finished AS (
  INSERT INTO ${steps} AS s (key_digest, step, record_created_at, outcome)
  SELECT ${keyDigest('$1')}, $3::text, held.created_at, $4::text FROM held
  ON CONFLICT (key_digest, step) DO UPDATE SET record_created_at = excluded.record_created_at, outcome = excluded.outcome
  WHERE s.record_created_at <> excluded.record_created_at OR s.outcome IS NULL
)
${writeOutcome(records, 'held', ['written', 'fenced', 'gone'])}`;
}
