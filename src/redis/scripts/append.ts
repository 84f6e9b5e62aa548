import { defineScript } from './define.js';

/**
 * KEYS[1] record · KEYS[2] log · ARGV[1] token · ARGV[2] offset · ARGV[3] bytes ·
 * ARGV[4] `1` when a head is given · ARGV[5] head · ARGV[6] retainBytes (`''`: keep all) ·
 * ARGV[7] lease ms (`''`: leave the lease) · ARGV[8] grace ms · ARGV[9] the generation it
 * continues (`''`: none)
 *
 * One append of the holder's generation (PROTOCOL.md § 14.9), fenced like settle: only
 * while the record is PROCESSING under this very token (an expired lease nobody took
 * over still holds). `offset` must equal the log's length for the record's generation —
 * 0 when the log is of an older generation or absent, which then needs the head and is
 * replaced (DEL, then the head entry). Then: the bytes as one entry; with retainBytes,
 * the oldest appends deleted while more than that many bytes are kept and more than one
 * append remains; with a lease, the lease renewed (and both keys' expiries extended when
 * due, below). The log appended to is the record's answer generation's: `a` once the
 * record continues one (PROTOCOL.md § 14.12), else ARGV[9] — a first continuation, which
 * needs that generation's log, as long as `offset`, and then sets `a` — else `g`. A new
 * log takes the record's remaining expiry. Readers on every instance are woken by a
 * sharded publish on the log's name (never the record's: the holder's watchStop sleeps on).
 *
 * The record keeps what its holder's appends need next, so most appends read nothing but
 * the record: `o`, the log's length after the last one (an append at that offset adds
 * its entry with NOMKSTREAM, which says when the log is gone; any other goes the long
 * way, reading the log's last entry), and `k`, the keys' expiry as last set (renewing the
 * lease pushes it back, to lease + grace and half a grace more, only once it would no
 * longer outlive the lease by a grace; `renew.ts` sets it too). A claim clears both.
 *
 * Returns `{1, length, stopRequested}`, or `{0, 'gone' | 'fenced' | 'offset' | 'head'}`
 * having changed nothing.
 */
export const APPEND = defineScript(
  'append',
  `
local r = redis.call('HMGET', KEYS[1], 's', 't', 'g', 'x', 'a', 'o', 'k')
if not r[1] then return {0, 'gone'} end
if r[1] ~= 'processing' or r[2] ~= ARGV[1] then return {0, 'fenced'} end
local continues = ARGV[9] ~= '' and ARGV[9] or nil
local g = r[5] or continues or r[3]
if continues and continues ~= g then return {0, 'offset'} end
local continuing = continues and not r[5]
local offset = tonumber(ARGV[2])
local size = string.len(ARGV[3])
local length = offset + size
local added = size > 0 and tonumber(r[6]) == offset
  and redis.call('XADD', KEYS[2], 'NOMKSTREAM', g .. '-' .. ms(length), 'o', ms(offset), 'b', ARGV[3])
if not added then
  length = -1
  local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
  if last and entry_generation(last[1]) == g then length = entry_end(last[1]) end
  if length < 0 then
    if continuing or offset ~= 0 then return {0, 'offset'} end
    if ARGV[4] ~= '1' then return {0, 'head'} end
    redis.call('DEL', KEYS[2])
    redis.call('XADD', KEYS[2], g .. '-0', 'h', ARGV[5])
    local ttl = redis.call('PTTL', KEYS[1])
    if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
    length = 0
  elseif offset ~= length then
    return {0, 'offset'}
  end
  if size > 0 then
    redis.call('XADD', KEYS[2], g .. '-' .. ms(length + size), 'o', ms(length), 'b', ARGV[3])
    length = length + size
  end
end
if ARGV[6] ~= '' then
  local retain = tonumber(ARGV[6])
  local appends = redis.call('XLEN', KEYS[2]) - 1
  while appends > 1 do
    local oldest = redis.call('XRANGE', KEYS[2], '(' .. g .. '-0', '+', 'COUNT', 1)[1]
    if length - tonumber(oldest[2][2]) <= retain then break end
    redis.call('XDEL', KEYS[2], oldest[1])
    appends = appends - 1
  end
end
local fields = {'o', ms(length)}
if ARGV[7] ~= '' then
  local lease = tonumber(ARGV[7])
  local grace = tonumber(ARGV[8])
  table.insert(fields, 'l')
  table.insert(fields, ms(now + lease))
  if (tonumber(r[7]) or 0) < now + lease + grace then
    local ttl = lease + grace + math.floor(grace / 2)
    redis.call('PEXPIRE', KEYS[1], ttl)
    redis.call('PEXPIRE', KEYS[2], ttl)
    table.insert(fields, 'k')
    table.insert(fields, ms(now + ttl))
  end
end
if continuing then
  table.insert(fields, 'a')
  table.insert(fields, continues)
end
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('SPUBLISH', KEYS[2], ms(length))
return {1, length, r[4] == '1' and 1 or 0}
`,
);
