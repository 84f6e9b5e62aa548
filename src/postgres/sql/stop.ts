import { IS_LIVE, type Tables, wokenUpdate } from './tables.js';

/**
 * $1 key · $2 position's generation (null: none) · $3 position's offset · $4 key's wake-up payload ·
 * $5 its stop's wake-up payload
 *
 * Asks the holder to stop (PROTOCOL.md § 14.7): a PROCESSING record gets `stop_requested`
 * (kept until it settles; a claim's new record starts without it) and, when the position
 * names the record's answer generation (the one it continues, § 14.12, else its own) and no
 * earlier stop set one, `stop_at` — later stops do
 * not move it. The holder's watchStop, wherever it runs, is woken (on both payloads: the
 * stop's lets a watch that heard none skip its look). A settled record is
 * left alone.
 *
 * Returns `stopping`, `settled` or `unknown` (no live record).
 */
export function stopSql(tables: Tables): string {
  return wokenUpdate(tables, {
    set: `
    stop_requested = true,
    stop_at = CASE WHEN r.stop_at IS NULL AND COALESCE(r.continues, r.generation) = $2::bigint THEN $3::bigint ELSE r.stop_at END`,
    where: `${IS_LIVE} AND r.state = 'processing'`,
    wakes: ['$4', '$5'],
    outcomes: ['stopping', 'settled', 'unknown'],
  });
}
