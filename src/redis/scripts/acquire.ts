import { defineScript } from './define.js';

/**
 * KEYS[1] record · ARGV[1] fingerprint · ARGV[2] lease ms · ARGV[3] grace ms · ARGV[4] new token
 *
 * Claims the record when it is absent, FAILED, or PROCESSING with a lease that Redis's
 * clock says has expired — and only under the same fingerprint. Read, decision and write
 * are one atomic step: no GET-then-SET window for a second worker to slip through.
 *
 * Returns `{1, now, token, leaseExpiresAt, takeover, retry}` when claimed, otherwise
 * `{0, now, s, f, t, l, c, r, e, d}`: the record as it is, unchanged.
 */
export const ACQUIRE = defineScript(
  'acquire',
  `
local r = redis.call('HMGET', KEYS[1], unpack(FIELDS))
local state = r[1]
local claimable = not state or state == 'failed' or (state == 'processing' and tonumber(r[4]) <= now)
if state and (r[2] ~= ARGV[1] or not claimable) then
  return {0, now, r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8]}
end
local lease = now + tonumber(ARGV[2])
if state == 'failed' then redis.call('HDEL', KEYS[1], 'e', 'd') end
redis.call('HSET', KEYS[1], 's', 'processing', 'f', ARGV[1], 't', ARGV[4], 'l', ms(lease), 'c', r[5] or ms(now))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]))
return {1, now, ARGV[4], lease, state == 'processing' and 1 or 0, state == 'failed' and 1 or 0}
`,
);
