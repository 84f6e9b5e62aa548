/**
 * A Lua script run with EVALSHA. Only text: the folder imports nothing, so every store
 * over Redis's protocol (`RedisStore` over TCP, `UpstashStore` over HTTP) runs the same
 * scripts, and each hashes them (SHA-1, what Redis caches a script under) with what its
 * runtime has.
 */
export interface RedisScript {
  readonly name: string;
  readonly source: string;
}

/** A helper: its Lua, and the helpers that Lua names. */
interface Helper {
  readonly name: string;
  readonly lua: string;
  readonly uses?: readonly string[];
}

/**
 * Lua shared by the scripts: each script gets the helpers its body names (and those they
 * use), no more — every call of a script defines them anew, and the clock is a call into
 * Redis. The record is one hash (KEYS[1]); the answer log, where a script touches it, is
 * a Stream beside it (KEYS[2], `log-key.ts`: the same hash tag, so the same Cluster
 * slot). The record's fields:
 *
 * | field | meaning                                   | states                 |
 * | ----- | ----------------------------------------- | ---------------------- |
 * | `s`   | state: processing / completed / failed    | all                    |
 * | `f`   | fingerprint                               | all                    |
 * | `t`   | fencing token                             | processing             |
 * | `l`   | lease deadline, Redis clock, epoch ms     | processing             |
 * | `c`   | created, Redis clock, epoch ms            | all                    |
 * | `r`   | result                                    | completed              |
 * | `e`   | error                                     | failed                 |
 * | `d`   | completed/failed at, Redis clock, epoch ms| completed, failed      |
 * | `g`   | generation (stream-store.ts)              | all                    |
 * | `x`   | `1`: a stop was requested                 | processing             |
 * | `n`   | runs: the claims made since the record was created | all           |
 * | `p`   | the stop's offset: where the answer ends  | processing             |
 * | `a`   | the generation whose answer `g` continues | all (once continued)   |
 * | `v`   | `1`: a model call avoided was counted     | completed              |
 * | `o`   | the log's length after the holder's last append (`append.ts`) | processing |
 * | `k`   | the keys' expiry the holder's appends last set, Redis clock, epoch ms | processing |
 *
 * The log (PROTOCOL.md § 14.9) is a Stream of ONE generation `g`, with explicit entry
 * IDs that carry the positions, so a range query is an offset query:
 *
 * | entry ID      | fields                     | what                                    |
 * | ------------- | -------------------------- | --------------------------------------- |
 * | `g-0`         | `h` head                   | the generation's head (never trimmed)   |
 * | `g-<end>`     | `o` start offset, `b` bytes| one append: bytes `[o, end)`            |
 *
 * A continued generation (PROTOCOL.md § 14.12) appends to the log of the generation `a`
 * it continues, so the log's `g` is the record's `a` when it has one, else its `g`.
 *
 * So the last entry's ID is `g-<length>`, and the appends holding bytes past offset N are
 * `XRANGE (g-N +`. `retainBytes` deletes the oldest appends (never the head); the first
 * remaining append's `o` is the log's `start`.
 *
 * Pub/sub (sharded, so on the key's shard): record changes that a waiter must see
 * (a takeover or retry claim, complete, fail, stop) publish on KEYS[1]'s name; appends
 * publish on KEYS[2]'s. So a holder's `watchStop` (record channel only) is never woken by
 * its own appends, and a reader listens on both.
 *
 * Time is Redis's own (`TIME`), so the clocks of the server instances never matter.
 *
 * A record goes back as `record(r, cap)`: `{0, now, s, f, t, l, c, r, e, d, g, x, n, p, a, v}`.
 * With a cap (the REST store's, which bounds every reply: `src/upstash/request-size.ts`), a
 * result or error whose `cost` is over it is left out (false) and its length in bytes
 * added as a 17th element, for the caller to read in pages (`read-field.ts`). A string's
 * `cost` is what it takes in a JSON reply, one character per byte (`src/upstash/wire.ts`):
 * 1, 2 for a byte above 0x7F, `"`, `\`, `/` and the short escapes, 6 for another control
 * byte; `fitting(s, room)` is `s` and its cost when it fits in `room`, else a prefix that
 * does (without a cost).
 *
 * In the order they are defined, each after the helpers it uses.
 */
const HELPERS: readonly Helper[] = [
  {
    name: 'now',
    lua: `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)`,
  },
  { name: 'ms', lua: `local function ms(n) return string.format('%d', n) end` },
  { name: 'FIELDS', lua: `local FIELDS = {'s', 'f', 't', 'l', 'c', 'r', 'e', 'd', 'g', 'x', 'n', 'p', 'a', 'v'}` },
  {
    name: 'cost',
    lua: `local function cost(s)
  local _, special = string.gsub(s, '[%z\\1-\\31"\\\\/\\127-\\255]', '')
  local long = 0
  if string.find(s, '[%z\\1-\\7\\11\\14-\\31\\127]') then
    _, long = string.gsub(s, '[%z\\1-\\7\\11\\14-\\31\\127]', '')
  end
  return string.len(s) + special + 4 * long
end`,
  },
  {
    name: 'fitting',
    uses: ['cost'],
    lua: `local function fitting(s, room)
  local size = cost(s)
  if size <= room then return s, size end
  local take = math.floor(room / 6)
  local guess = math.floor(string.len(s) * room / size)
  for _ = 1, 4 do
    if guess <= take then break end
    if cost(string.sub(s, 1, guess)) <= room then take = guess; break end
    guess = math.floor(guess * 0.95)
  end
  return string.sub(s, 1, take)
end`,
  },
  {
    name: 'record',
    uses: ['now', 'cost'],
    lua: `local function record(r, cap)
  local out = {0, now, r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14]}
  for i = 6, 7 do
    local field = cap and r[i]
    if field and string.len(field) * 6 > cap and (string.len(field) > cap or cost(field) > cap) then
      out[i + 2] = false
      out[17] = string.len(field)
    end
  end
  return out
end`,
  },
  { name: 'entry_end', lua: `local function entry_end(id) return tonumber(string.match(id, '%-(%d+)$')) end` },
  { name: 'entry_generation', lua: `local function entry_generation(id) return string.match(id, '^(%d+)%-') end` },
];

/** The helpers `body` names, with the helpers they use, in definition order. */
function preludeOf(body: string): string {
  const needed = new Set(HELPERS.filter(({ name }) => new RegExp(`\\b${name}\\b`).test(body)).map(({ name }) => name));
  for (const { name, uses = [] } of [...HELPERS].reverse()) if (needed.has(name)) for (const used of uses) needed.add(used);
  return HELPERS.filter(({ name }) => needed.has(name))
    .map(({ lua }) => lua)
    .join('\n');
}

export function defineScript(name: string, body: string): RedisScript {
  const script = body.trim();
  return Object.freeze({ name, source: `-- answer-once/redis: ${name}\n${preludeOf(script)}\n${script}\n` });
}
