import { CLOCK, IS_LIVE, RECORD_COLUMNS, type Tables } from './tables.js';

/**
 * $1 key
 *
 * The live record, and the database's `now` (so a lease deadline is translated into the
 * caller's clock, whatever its skew). Always one row; the record's columns are null
 * when there is none.
 */
export function getSql({ records }: Tables): string {
  return `
WITH ${CLOCK}
SELECT clock.now, ${RECORD_COLUMNS}
FROM clock LEFT JOIN ${records} r ON ${IS_LIVE}`;
}
