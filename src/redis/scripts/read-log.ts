import { defineScript } from './define.js';

/**
 * KEYS[1] record · KEYS[2] log · ARGV[1] from generation (`''`: none) · ARGV[2] from offset ·
 * ARGV[3] a page's cap (`''`: none)
 *
 * The record and the log in one atomic step (PROTOCOL.md § 14.9 read): the log's bytes
 * from the offset when `from` names the log's generation (capped at its length), else
 * from the first byte kept. No record: no log either (it goes with its record).
 *
 * Returns `{record}` (the read script's shape) when there is no log, else
 * `{record, generation, head, length, offset, bytes…}`: the bytes `[offset, length)` as the
 * appends that hold them, the first one cut at `offset`. With a cap, only the first bytes
 * of those whose cost stays within it (at least one byte): a page, `[offset, offset + n)`,
 * the reader asking again from where it ended. The cost is what the bytes take in a JSON
 * reply (`define.ts`). With a cap, the record leaves out a result or error costing more
 * than half of it (`define.ts`, `record`), and one it carries counts against the cap.
 */
export const READ_LOG = defineScript(
  'read-log',
  `
local r = redis.call('HMGET', KEYS[1], unpack(FIELDS))
local cap = ARGV[3] ~= '' and tonumber(ARGV[3]) or nil
local rec = record(r, cap and math.floor(cap / 2))
if not r[1] then return {rec} end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)[1]
if not last then return {rec} end
local g = entry_generation(last[1])
local length = entry_end(last[1])
local head = redis.call('XRANGE', KEYS[2], g .. '-0', g .. '-0')[1]
if not head then return {rec} end
local offset = 0
if ARGV[1] == g then offset = math.min(tonumber(ARGV[2]), length) end
local appends = redis.call('XRANGE', KEYS[2], '(' .. g .. '-' .. ms(offset), '+')
local out = {rec, g, head[2][2], length, offset}
local spent = cap and cost(rec[8] or '') + cost(rec[9] or '') or 0
for index, entry in ipairs(appends) do
  local start = tonumber(entry[2][2])
  local bytes = entry[2][4]
  if index == 1 then
    if start > offset then offset = start; out[5] = offset end
    if start < offset then bytes = string.sub(bytes, offset - start + 1) end
  end
  if cap then
    local page, size = fitting(bytes, cap - spent)
    if not size then
      if page ~= '' then out[#out + 1] = page end
      break
    end
    spent = spent + size
  end
  out[#out + 1] = bytes
end
return out
`,
);
