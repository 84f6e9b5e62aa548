/**
 * Every REST request the store sends stays at or under {@link MAX_REQUEST_BYTES}: the
 * command as the client sends it, `JSON.stringify` of `["evalsha", sha, "2", keys…, args…]`,
 * each argument one character per byte (`wire.ts`). An argument's bytes cost what JSON
 * makes of their characters (`"` and `\` two bytes, a control byte up to six, a byte above
 * 0x7F two); a payload that would take a request past the bound goes in parts.
 */
import type { RestScript } from './wire.js';

/** The largest REST request body the store sends, in bytes (1 MB; Upstash caps a request at 10 MB). */
export const MAX_REQUEST_BYTES = 1_000_000;

const ESCAPED_SHORT = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d, 0x22, 0x5c]);

/** What one byte costs in the request body, sent as one character (U+0000–U+00FF) of a JSON string. */
function costOf(byte: number): number {
  if (ESCAPED_SHORT.has(byte)) return 2;
  if (byte < 0x20) return 6;
  return byte < 0x80 ? 1 : 2;
}

const encoder = new TextEncoder();

/**
 * The request body's bytes besides one argument's, for `script` run with `keys` and
 * `args` (the argument left out, `''` in its place): EVAL's, which sends the whole
 * source, so EVALSHA's too.
 */
export function requestOverhead(script: RestScript, keys: string[], args: string[]): number {
  return encoder.encode(JSON.stringify(['eval', script.source, String(keys.length), ...keys, ...args])).byteLength;
}

/**
 * `bytes` cut into parts that each cost at most `budget` bytes in a request (the first
 * may cost less: `first` is its own budget). Cut anywhere: the parts are joined again
 * in Redis before anyone reads them.
 */
export function partsOf(bytes: Uint8Array, budget: number, first = budget): Uint8Array[] {
  if (first < 6 || budget < 6) throw new RangeError('answer-once/upstash: the request budget is too small for a part');
  const parts: Uint8Array[] = [];
  let start = 0;
  let cost = 0;
  let limit = first;
  for (let index = 0; index < bytes.byteLength; index += 1) {
    const next = costOf(bytes[index]!);
    if (cost + next > limit) {
      parts.push(bytes.subarray(start, index));
      start = index;
      cost = 0;
      limit = budget;
    }
    cost += next;
  }
  parts.push(bytes.subarray(start));
  return parts;
}

/**
 * What one page may cost in a script's JSON reply: of a log read (`scripts/read-log.ts`
 * counts it, a record's answer beside it included), of a record's result or error
 * (`scripts/define.ts`, `record`: a costlier one is left out) and of a page of it
 * (`scripts/read-field.ts`). The REST API sends that reply on as base64 (4/3 of it) or as
 * a JSON string (at most twice it), so a page takes at most 800,000 bytes of the reply,
 * which stays under 1 MB while the rest of the record and the head take under 100 kB.
 */
export const PAGE_COST = 400_000;
