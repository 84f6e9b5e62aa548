import { IS_HELD, type Tables, wokenUpdate } from './tables.js';

/**
 * $1 key · $2 token · $3 `completed` | `failed` · $4 result or error · $5 ttl ms ·
 * $6 log linger ms · $7 key's wake-up payload
 *
 * PROCESSING → COMPLETED / FAILED, only under this very token: a zombie's late write
 * changes nothing. The record then lives `ttl`; its log min(linger, ttl) (readers that
 * are behind finish from it, § 14.9). The generation, the one it continues and `runs` are kept; the token,
 * the lease and the stop are not. Waiters and readers everywhere are woken.
 *
 * Returns `written`, `fenced` (a live record under another token or state) or `gone`.
 */
export function settleSql(tables: Tables): string {
  return wokenUpdate(tables, {
    set: `
    state = $3::text,
    outcome = $4::text,
    settled_at = clock.now,
    token = NULL,
    lease_expires_at = NULL,
    stop_requested = false,
    stop_at = NULL,
    expires_at = clock.now + $5::bigint,
    log_expires_at = clock.now + LEAST($5::bigint, $6::bigint)`,
    where: IS_HELD,
    wakes: '$7',
    outcomes: ['written', 'fenced', 'gone'],
  });
}
