import { CLOCK, IS_LIVE, type Tables } from './tables.js';

/**
 * $1 key · $2 token
 *
 * What a holder's watchStop looks at: `0` when `token` no longer holds the record
 * (settled, taken over, gone), `1` while it holds it, `2` when it holds it and a stop was
 * asked. An expired lease nobody took over still holds (§ 5.4).
 */
export function watchStopSql({ records }: Tables): string {
  return `
WITH ${CLOCK}
SELECT CASE WHEN r.state = 'processing' AND r.token = $2::text THEN (CASE WHEN r.stop_requested THEN 2 ELSE 1 END)
  ELSE 0 END AS held
FROM clock LEFT JOIN ${records} r ON ${IS_LIVE}`;
}
