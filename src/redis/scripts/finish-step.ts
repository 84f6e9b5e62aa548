import { defineScript } from './define.js';

/**
 * KEYS[1] record · ARGV[1] token · ARGV[2] step ID · ARGV[3] outcome
 *
 * Records the step's outcome in the record's hash (field `j:<step ID>` = `f` .. outcome,
 * `start-step.ts`) unless it already has one — a recorded outcome is never replaced —
 * only under this very token. Returns 1; 0 for a zombie (another token, or settled); -1
 * when there is no record.
 */
export const FINISH_STEP = defineScript(
  'finish-step',
  `
local r = redis.call('HMGET', KEYS[1], 's', 't')
if not r[1] then return -1 end
if r[1] ~= 'processing' or r[2] ~= ARGV[1] then return 0 end
local field = 'j:' .. ARGV[2]
local entry = redis.call('HGET', KEYS[1], field)
if not (entry and string.sub(entry, 1, 1) == 'f') then redis.call('HSET', KEYS[1], field, 'f' .. ARGV[3]) end
return 1
`,
);
