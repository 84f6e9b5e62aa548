import { defineScript } from './define.js';

/**
 * KEYS[1] record · ARGV[1] token · ARGV[2] lease ms · ARGV[3] grace ms
 *
 * Extends the lease to Redis-now + lease, only while PROCESSING under this very token
 * (the fencing check happens here, inside Redis). Returns 1, or 0 for a zombie.
 */
export const RENEW = defineScript(
  'renew',
  `
local r = redis.call('HMGET', KEYS[1], 's', 't')
if r[1] ~= 'processing' or r[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'l', ms(now + tonumber(ARGV[2])))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]))
return 1
`,
);
