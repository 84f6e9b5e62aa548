import { defineScript } from './define.js';

/**
 * KEYS[1] record · KEYS[2] log · ARGV[1] token · ARGV[2] `completed` | `failed` ·
 * ARGV[3] result or error · ARGV[4] ttl ms · ARGV[5] log linger ms · ARGV[6] bytes staged
 * before ARGV[3] (`stage.ts`; `''`: none)
 *
 * PROCESSING → COMPLETED / FAILED, only under this very token: a zombie's late write
 * changes nothing and gets 0; a write to a record that is not there at all gets -1. On
 * success the record expires after the TTL, the log after min(linger, TTL) (readers that
 * are behind finish from it, § 14.9), and waiters and readers on every instance are
 * woken by a sharded publish on the record's own name (same slot). The generation is
 * kept, and the generation it continued; the stop request is not. With ARGV[6], the
 * result or error is the staged bytes followed by ARGV[3], and -2 answers a staging field
 * that does not hold exactly ARGV[6] bytes (nothing changes).
 */
export const SETTLE = defineScript(
  'settle',
  `
local r = redis.call('HMGET', KEYS[1], 's', 't', 'q')
if not r[1] then return -1 end
if r[1] ~= 'processing' or r[2] ~= ARGV[1] then return 0 end
local payload = ARGV[3]
if ARGV[6] ~= '' then
  local staged = r[3] or ''
  if string.len(staged) ~= tonumber(ARGV[6]) then return -2 end
  payload = staged .. payload
end
redis.call('HDEL', KEYS[1], 't', 'l', 'x', 'p', 'q', 'o', 'k')
redis.call('HSET', KEYS[1], 's', ARGV[2], ARGV[2] == 'completed' and 'r' or 'e', payload, 'd', ms(now))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
redis.call('PEXPIRE', KEYS[2], math.min(tonumber(ARGV[4]), tonumber(ARGV[5])))
redis.call('SPUBLISH', KEYS[1], ARGV[2])
return 1
`,
);
