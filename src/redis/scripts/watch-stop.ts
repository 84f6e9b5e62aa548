import { defineScript } from './define.js';

/**
 * KEYS[1] record · ARGV[1] token
 *
 * What a holder's watchStop looks at, in one read: `0` when `token` no longer holds the
 * record (settled, taken over, gone), `1` while it holds it, `2` when it holds it and a
 * stop was requested. An expired lease nobody took over still holds (§ 5.4).
 */
export const WATCH_STOP = defineScript(
  'watch-stop',
  `
local r = redis.call('HMGET', KEYS[1], 's', 't', 'x')
if r[1] ~= 'processing' or r[2] ~= ARGV[1] then return 0 end
return r[3] == '1' and 2 or 1
`,
);
