import { defineScript } from './define.js';

/**
 * KEYS[1] record · ARGV[1] generation of the stop's position (empty: none) · ARGV[2] its offset
 *
 * Asks the holder to stop (PROTOCOL.md § 14.8): a PROCESSING record gets `x = 1` (kept
 * until it settles; a claim's new record starts without it) and the holder's watchStop,
 * wherever it runs, is woken by a sharded publish on the record's name. A position of the
 * record's generation is kept as `p` (where the holder ends the stored answer) unless a
 * stop already set it. A settled record is left alone. Returns `stopping`, `settled` or
 * `unknown` (no record).
 */
export const STOP = defineScript(
  'stop',
  `
local state = redis.call('HGET', KEYS[1], 's')
if not state then return 'unknown' end
if state ~= 'processing' then return 'settled' end
redis.call('HSET', KEYS[1], 'x', '1')
if ARGV[1] ~= '' and ARGV[1] == redis.call('HGET', KEYS[1], 'g') then
  redis.call('HSETNX', KEYS[1], 'p', ARGV[2])
end
redis.call('SPUBLISH', KEYS[1], 'stop')
return 'stopping'
`,
);
