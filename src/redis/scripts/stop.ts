import { defineScript } from './define.js';

/**
 * KEYS[1] record
 *
 * Asks the holder to stop (PROTOCOL.md § 14.8): a PROCESSING record gets `x = 1` (kept
 * until it settles; a claim's new record starts without it) and the holder's watchStop,
 * wherever it runs, is woken by a sharded publish on the record's name. A settled record
 * is left alone. Returns `stopping`, `settled` or `unknown` (no record).
 */
export const STOP = defineScript(
  'stop',
  `
local state = redis.call('HGET', KEYS[1], 's')
if not state then return 'unknown' end
if state ~= 'processing' then return 'settled' end
redis.call('HSET', KEYS[1], 'x', '1')
redis.call('SPUBLISH', KEYS[1], 'stop')
return 'stopping'
`,
);
