import { defineScript } from './define.js';

/**
 * KEYS[1] record · ARGV[1] the field, `r` (result) or `e` (error) · ARGV[2] the record's
 * generation `g` · ARGV[3] its settling time `d` · ARGV[4] offset · ARGV[5] a page's cap
 *
 * A page of a settled record's result or error that a capped read left out for its cost
 * (`define.ts`, `record`): its bytes from the offset, as many as cost at most the cap
 * (at least one while any are left). Only of the record that read saw: a settled record
 * never changes, and a record claimed again since (a retry of a failure) or created anew
 * after it expired has another generation or no such field. Returns `{bytes}`, or `{}`
 * when the record is no longer that one.
 */
export const READ_FIELD = defineScript(
  'read-field',
  `
local r = redis.call('HMGET', KEYS[1], ARGV[1], 'g', 'd')
if not r[1] or (r[2] or '') ~= ARGV[2] or (r[3] or '') ~= ARGV[3] then return {} end
local offset = tonumber(ARGV[4])
local cap = tonumber(ARGV[5])
return {(fitting(string.sub(r[1], offset + 1, offset + cap), cap))}
`,
);
