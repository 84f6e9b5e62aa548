import { defineScript } from './define.js';

/**
 * KEYS[1] record · ARGV[1] token · ARGV[2] bytes staged so far · ARGV[3] the next part
 *
 * A settle's payload sent in parts (`settle.ts` takes the last one), for a transport that
 * caps a request's size: the part is added to the record's staging field `q`, only while
 * the record is PROCESSING under this very token (fenced like settle, so a run that lost
 * its lease stages nothing). `q` is no field a reader decodes: the record is not settled
 * until `settle` moves `q` and its own part into the result, in one step. A first part
 * (ARGV[2] `0`) replaces whatever an earlier try staged; a later one must find exactly
 * ARGV[2] bytes staged (a lost or repeated part never becomes a hole or a duplicate).
 *
 * Returns 1 staged, 0 fenced, -1 no record, -2 the staged length was not ARGV[2].
 */
export const STAGE = defineScript(
  'stage',
  `
local r = redis.call('HMGET', KEYS[1], 's', 't', 'q')
if not r[1] then return -1 end
if r[1] ~= 'processing' or r[2] ~= ARGV[1] then return 0 end
local staged = ARGV[2] == '0' and '' or (r[3] or '')
if string.len(staged) ~= tonumber(ARGV[2]) then return -2 end
redis.call('HSET', KEYS[1], 'q', staged .. ARGV[3])
return 1
`,
);
