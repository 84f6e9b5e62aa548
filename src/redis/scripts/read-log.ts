import { defineScript } from './define.js';

/**
 * KEYS[1] record · KEYS[2] log · ARGV[1] from generation (`''`: none) · ARGV[2] from offset
 *
 * The record and the log in one atomic step (PROTOCOL.md § 14.9 read): the log's bytes
 * from the offset when `from` names the log's generation (capped at its length), else
 * from the first byte kept. No record: no log either (it goes with its record).
 *
 * Returns `{record}` (the read script's shape) when there is no log, else
 * `{record, generation, head, length, offset, bytes…}`: the bytes `[offset, length)` as the
 * appends that hold them, the first one cut at `offset`.
 */
export const READ_LOG = defineScript(
  'read-log',
  `
local r = redis.call('HMGET', KEYS[1], unpack(FIELDS))
if not r[1] then return {record(r)} end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
if not last then return {record(r)} end
local g = entry_generation(last[1])
local length = entry_end(last[1])
local head = redis.call('XRANGE', KEYS[2], g .. '-0', g .. '-0')[1]
if not head then return {record(r)} end
local offset = 0
if ARGV[1] == g then offset = math.min(tonumber(ARGV[2]), length) end
local appends = redis.call('XRANGE', KEYS[2], '(' .. g .. '-' .. ms(offset), '+')
local out = {record(r), g, head[2][2], length, offset}
for index, entry in ipairs(appends) do
  local start = tonumber(entry[2][2])
  local bytes = entry[2][4]
  if index == 1 then
    if start > offset then offset = start; out[5] = offset end
    if start < offset then bytes = string.sub(bytes, offset - start + 1) end
  end
  out[#out + 1] = bytes
end
return out
`,
);
