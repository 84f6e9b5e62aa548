import { defineScript } from './define.js';

/**
 * KEYS[1] record · KEYS[2] log · ARGV[1] fingerprint · ARGV[2] lease ms · ARGV[3] grace ms ·
 * ARGV[4] new token · ARGV[5] the cap on a refusal's result or error cost (absent: none, `define.ts`)
 *
 * Claims the record when it is absent, FAILED, or PROCESSING with a lease that Redis's
 * clock says has expired — and only under the same fingerprint. Read, decision and write
 * are one atomic step: no GET-then-SET window for a second worker to slip through.
 *
 * The claim's generation is `max(now, previous + 1)` (previous: the replaced record's,
 * 0 when none), so it grows even across a record that expired. The new record starts
 * without a stop request or a continued generation, and without what a run that lost it
 * staged (`stage.ts`) or its appends kept (`append.ts`). `n` counts the claims: 1 for a
 * new record, one more on each retry or takeover (a record written before `n` existed
 * counts as one run). A claim
 * that replaces a record (retry, takeover) wakes the key's waiters and readers; a log
 * beside it lives on with the new record's expiry until the new generation's first
 * append replaces it.
 *
 * Returns `{1, now, token, leaseExpiresAt, takeover, retry, generation, runs}` when
 * claimed, otherwise `{0, now, s, f, t, l, c, r, e, d, g, x, n, p, a, v}`: the record as it is,
 * unchanged.
 */
export const ACQUIRE = defineScript(
  'acquire',
  `
local r = redis.call('HMGET', KEYS[1], unpack(FIELDS))
local state = r[1]
local claimable = not state or state == 'failed' or (state == 'processing' and tonumber(r[4]) <= now)
if state and (r[2] ~= ARGV[1] or not claimable) then
  return record(r, tonumber(ARGV[5] or ''))
end
local lease = now + tonumber(ARGV[2])
local generation = math.max(now, (tonumber(r[9]) or 0) + 1)
local runs = state and (tonumber(r[11]) or 1) + 1 or 1
local ttl = tonumber(ARGV[2]) + tonumber(ARGV[3])
if state then redis.call('HDEL', KEYS[1], 'e', 'd', 'x', 'p', 'a', 'v', 'q', 'o', 'k') end
redis.call('HSET', KEYS[1], 's', 'processing', 'f', ARGV[1], 't', ARGV[4], 'l', ms(lease), 'c', r[5] or ms(now), 'g', ms(generation), 'n', ms(runs))
redis.call('PEXPIRE', KEYS[1], ttl)
if state then
  redis.call('PEXPIRE', KEYS[2], ttl)
  redis.call('SPUBLISH', KEYS[1], 'claimed')
end
return {1, now, ARGV[4], lease, state == 'processing' and 1 or 0, state == 'failed' and 1 or 0, generation, runs}
`,
);
