import { CLOCK, IS_LIVE, RECORD_COLUMNS, type Tables } from './tables.js';

/**
 * $1 key
 *
 * Marks a live COMPLETED record as counted: a model call its answer avoided was reported.
 * The mark is the generation it was set for (`avoided_generation`), so a record that a
 * later claim replaces (after it expired) starts unmarked without any other statement
 * knowing. Always one row: the record when this statement set the mark, nulls otherwise
 * (marked already, not COMPLETED, or no record).
 */
export function markAvoidedSql({ records }: Tables): string {
  return `
WITH ${CLOCK},
marked AS (
  UPDATE ${records} r SET avoided_generation = r.generation
  FROM clock
  WHERE ${IS_LIVE} AND r.state = 'completed'
    AND r.avoided_generation IS DISTINCT FROM r.generation
  RETURNING ${RECORD_COLUMNS}
)
SELECT clock.now, marked.* FROM clock LEFT JOIN marked ON true`;
}
