import { defineScript } from './define.js';

/**
 * KEYS[1] record · KEYS[2] log (unused) · ARGV[1] the cap on the result's cost (absent: none, `define.ts`)
 *
 * Marks a COMPLETED record as counted (`v`): a model call its answer avoided was reported.
 * Returns the marked record as `read` does when this call set the mark; `{0, now, nil}`
 * (no record) when the mark was there already or the record is not COMPLETED. The mark
 * goes with the record: a completed record is never claimed again, only expires.
 */
export const MARK_AVOIDED = defineScript(
  'mark-avoided',
  `
local r = redis.call('HMGET', KEYS[1], unpack(FIELDS))
if r[1] ~= 'completed' or r[14] then return {0, now, false} end
redis.call('HSET', KEYS[1], 'v', '1')
r[14] = '1'
return record(r, tonumber(ARGV[1] or ''))
`,
);
