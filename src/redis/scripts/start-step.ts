import { defineScript } from './define.js';

/**
 * KEYS[1] record · ARGV[1] token · ARGV[2] step ID · ARGV[3] `1` to restart an unfinished step
 *
 * The step journal (PROTOCOL.md § 15) lives in the record's own hash, one field per step,
 * `j:<step ID>`: `s` while started without outcome, `f` followed by the outcome once
 * finished. So it expires with the record, a claim of the same record (a retry, a
 * takeover: neither deletes the hash) keeps it, and a record created anew starts without.
 *
 * Only under this very token: returns `{1}` when the step is (now) started, `{2, outcome}`
 * when it is finished, `{3}` when it is started without outcome and not restarted, `{0}`
 * for a zombie (another token, or settled), `{-1}` when there is no record.
 */
export const START_STEP = defineScript(
  'start-step',
  `
local r = redis.call('HMGET', KEYS[1], 's', 't')
if not r[1] then return {-1} end
if r[1] ~= 'processing' or r[2] ~= ARGV[1] then return {0} end
local field = 'j:' .. ARGV[2]
local entry = redis.call('HGET', KEYS[1], field)
if entry and string.sub(entry, 1, 1) == 'f' then return {2, string.sub(entry, 2)} end
if entry and ARGV[3] ~= '1' then return {3} end
redis.call('HSET', KEYS[1], field, 's')
return {1}
`,
);
