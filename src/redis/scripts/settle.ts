import { defineScript } from './define.js';

/**
 * KEYS[1] record · ARGV[1] token · ARGV[2] `completed` | `failed` · ARGV[3] result or error ·
 * ARGV[4] ttl ms
 *
 * PROCESSING → COMPLETED / FAILED, only under this very token: a zombie's late write
 * changes nothing and gets 0; a write to a record that is not there at all gets -1. On success the record expires after the TTL and waiters on
 * every instance are woken by a sharded publish on the record's own name (same slot).
 */
export const SETTLE = defineScript(
  'settle',
  `
local r = redis.call('HMGET', KEYS[1], 's', 't')
if not r[1] then return -1 end
if r[1] ~= 'processing' or r[2] ~= ARGV[1] then return 0 end
redis.call('HDEL', KEYS[1], 't', 'l')
redis.call('HSET', KEYS[1], 's', ARGV[2], ARGV[2] == 'completed' and 'r' or 'e', ARGV[3], 'd', ms(now))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('SPUBLISH', KEYS[1], ARGV[2])
return 1
`,
);
