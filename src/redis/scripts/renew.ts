import { defineScript } from './define.js';

/**
 * KEYS[1] record · KEYS[2] log · ARGV[1] token · ARGV[2] lease ms · ARGV[3] grace ms
 *
 * Extends the lease to Redis-now + lease, only while PROCESSING under this very token
 * (the fencing check happens here, inside Redis), and the log's expiry with the record's
 * (kept as `k`, what the appends' own extensions go by: `append.ts`).
 * Returns 1; 0 for a zombie (the record is held by another token, or settled); -1 when
 * there is no record at all (expired, evicted, flushed), so the worker can tell a lost
 * record from a successor.
 */
export const RENEW = defineScript(
  'renew',
  `
local r = redis.call('HMGET', KEYS[1], 's', 't')
if not r[1] then return -1 end
if r[1] ~= 'processing' or r[2] ~= ARGV[1] then return 0 end
local ttl = tonumber(ARGV[2]) + tonumber(ARGV[3])
redis.call('HSET', KEYS[1], 'l', ms(now + tonumber(ARGV[2])), 'k', ms(now + ttl))
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
`,
);
