/**
 * How the Redis store's scripts (`src/redis/scripts/`) cross Upstash's REST API, whose
 * requests and replies are JSON text: every byte must arrive as it was, whatever it is
 * (the answer log holds any bytes, cut anywhere, not only whole UTF-8 characters), and
 * the reply must survive `@upstash/redis`'s automatic deserialization (it `JSON.parse`s
 * every string it can, so `"123"` would come back a number and `"\"x\""` lose its quotes).
 *
 * - each argument goes as one character per byte (U+0000–U+00FF, "Latin-1"): JSON sends
 *   it as UTF-8, and the script turns each two-byte sequence back into its byte before
 *   the shared body runs;
 * - the body's reply comes back as ONE JSON text (`cjson`), its strings' bytes above
 *   0x7F written the same way and its numbers as decimal text: `JSON.parse` gives the
 *   reply's exact shape whether or not the client deserialized it already.
 *
 * So ASCII (SSE, JSON) costs nothing extra, and a byte above 0x7F two. The script maps
 * the bytes above 0x7F through two tables, made once per call that has any.
 */
import { RedisStoreReplyError } from '../redis/errors.js';
import type { RedisScript } from '../redis/scripts/define.js';

/** The Lua around a shared script: arguments decoded, the body run as a function, its reply encoded. */
const WRAP_BEFORE = String.raw`
local TEXT, BYTE
local function tables()
  if TEXT then return end
  TEXT, BYTE = {}, {}
  for b = 128, 255 do
    local text = string.char(192 + math.floor(b / 64), 128 + b % 64)
    TEXT[string.char(b)] = text
    BYTE[text] = string.char(b)
  end
end
local function to_bytes(s)
  if not string.find(s, '[\194\195]') then return s end
  tables()
  return (string.gsub(s, '[\194\195][\128-\191]', BYTE))
end
local function to_text(s)
  if not string.find(s, '[\128-\255]') then return s end
  tables()
  return (string.gsub(s, '[\128-\255]', TEXT))
end
local function encode(v)
  local kind = type(v)
  if kind == 'table' then
    local out = {}
    for i = 1, #v do out[i] = encode(v[i]) end
    return out
  elseif kind == 'string' then return to_text(v)
  elseif kind == 'number' then return string.format('%d', v)
  elseif v == true then return '1'
  end
  return false
end
for i = 1, #ARGV do ARGV[i] = to_bytes(ARGV[i]) end
local reply = (function()
`;

const WRAP_AFTER = `
end)()
return cjson.encode({encode(reply)})
`;

/** A shared script as it runs over REST; `sha1` is what Redis caches it under, once hashed. */
export interface RestScript {
  readonly name: string;
  readonly source: string;
  sha1?: string;
}

const wrapped = new WeakMap<RedisScript, RestScript>();

/** `script` wrapped for REST, made once per script. */
export function restScript(script: RedisScript): RestScript {
  let rest = wrapped.get(script);
  if (!rest) {
    rest = { name: script.name, source: `${WRAP_BEFORE}${script.source}${WRAP_AFTER}` };
    wrapped.set(script, rest);
  }
  return rest;
}

/**
 * The SHA-1 of the wrapped script (WebCrypto: every runtime has it). Kept as a string,
 * never as a promise: on Workers a promise made by one request's I/O cannot be awaited by
 * another's, so calls that start before the first hash is in each hash it.
 */
export async function sha1Of(rest: RestScript): Promise<string> {
  if (rest.sha1 === undefined) {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-1', new TextEncoder().encode(rest.source)));
    rest.sha1 = Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
  }
  return rest.sha1;
}

/** Bytes as one character per byte (what the script turns back into those bytes). */
export function bytesToText(bytes: Uint8Array): string {
  let text = '';
  // In slices: String.fromCharCode takes its bytes as arguments, and a stack has a limit.
  for (let at = 0; at < bytes.byteLength; at += 0x2000) {
    text += String.fromCharCode(...bytes.subarray(at, at + 0x2000));
  }
  return text;
}

const encoder = new TextEncoder();

/** A text argument as its UTF-8 bytes, one character per byte. */
export const textArgument = (text: string): string => bytesToText(encoder.encode(text));

/** One character per byte back into the bytes. */
function textToBytes(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let index = 0; index < text.length; index += 1) bytes[index] = text.charCodeAt(index);
  return bytes;
}

/** Strings back into their bytes (`reply.ts` reads text and integers from bytes too), `false` into nil. */
function revive(value: unknown): unknown {
  if (typeof value === 'string') return textToBytes(value);
  if (value === false || value === null) return null;
  // cjson writes an empty table as `{}`: a script's empty array.
  if (typeof value === 'object') return Array.isArray(value) ? value.map(revive) : [];
  return value;
}

/**
 * The script's reply as it was: one JSON text, or the client's parse of it (its
 * automatic deserialization), whose strings are one character per byte.
 */
export function decodeReply(raw: unknown): unknown {
  const parsed = typeof raw === 'string' ? (JSON.parse(raw) as unknown) : raw;
  if (!Array.isArray(parsed) || parsed.length !== 1)
    throw new RedisStoreReplyError('answer-once/upstash: expected a script reply as one JSON array');
  return revive(parsed[0]);
}
