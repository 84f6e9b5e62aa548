import { defineScript } from './define.js';

/**
 * KEYS[1] record · KEYS[2] log · ARGV[1] token · ARGV[2] lease ms · ARGV[3] grace ms
 *
 * Extends the lease to Redis-now + lease, only while PROCESSING under this very token
 * (the fencing check happens here, inside Redis), and the log's expiry with the record's.
 * Returns 1, or 0 for a zombie.
 */
export const RENEW = defineScript(
  'renew',
  `
local r = redis.call('HMGET', KEYS[1], 's', 't')
if r[1] ~= 'processing' or r[2] ~= ARGV[1] then return 0 end
local ttl = tonumber(ARGV[2]) + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'l', ms(now + tonumber(ARGV[2])))
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
`,
);
