import { CLOCK, IS_HELD, type Tables, updateLive, writeOutcome } from './tables.js';

/**
 * $1 key · $2 token · $3 lease ms · $4 grace ms
 *
 * Extends the lease to now + lease (and the row's life to lease + grace), only while the
 * record is PROCESSING under this very token — the fencing check is the UPDATE's WHERE.
 * An expired lease nobody took over still holds (PROTOCOL.md § 5.4). The log lives with
 * its PROCESSING record, so it is extended too.
 *
 * Returns `written`; `fenced` when a live record is there under another token or state;
 * `gone` when there is none.
 */
export function renewSql({ records }: Tables): string {
  return `
WITH ${CLOCK},
${updateLive(records, 'renewed', 'lease_expires_at = clock.now + $3::bigint, expires_at = clock.now + $3::bigint + $4::bigint', IS_HELD)}
${writeOutcome(records, 'renewed', ['written', 'fenced', 'gone'])}`;
}
