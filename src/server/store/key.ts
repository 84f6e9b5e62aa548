/**
 * Store keys: (user, session, requestId) → one string, injectively, inside a Redis
 * Cluster hash tag so every key a store derives from it lands on one slot.
 *
 *   answer-once:{<user>:<session>:<requestId>}
 *
 * Each part is percent-encoded over its bytes in generalized UTF-8 (WTF-8: UTF-8, with a
 * lone UTF-16 surrogate encoded as the three bytes its code point would take), keeping
 * only `[A-Za-z0-9_-]`. So `:`, `{`, `}` and `%` never appear raw inside a part
 * (`a:b`+`c` and `a`+`b:c` differ), and no two strings share an encoding: a lone
 * surrogate's bytes (`ED A0`–`ED BF`) never occur in well-formed UTF-8, so `"x\uD800"`
 * and `"x\uFFFD"` are two users (PROTOCOL.md § 4).
 */

/** Who an intent belongs to, from the app's own auth (never from a client header). */
export interface Scope {
  /** The authenticated user. Must be a non-empty string. */
  readonly user: string;
  /**
   * The session or tenant within the user, when IDs are only unique per session.
   * @default ''
   */
  readonly session?: string;
}

/** The prefix of every key `encodeKey` builds unless told otherwise. */
export const DEFAULT_KEY_PREFIX = 'answer-once:';

const HEX = '0123456789ABCDEF';

function isSafe(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) ||
    (byte >= 0x41 && byte <= 0x5a) ||
    (byte >= 0x61 && byte <= 0x7a) ||
    byte === 0x2d ||
    byte === 0x5f
  );
}

const ALL_SAFE = /^[A-Za-z0-9_-]*$/;

/** The WTF-8 bytes of one code point (a lone surrogate is a code point here too). */
function utf8Bytes(point: number): number[] {
  if (point < 0x80) return [point];
  if (point < 0x800) return [0xc0 | (point >> 6), 0x80 | (point & 63)];
  if (point < 0x10000) return [0xe0 | (point >> 12), 0x80 | ((point >> 6) & 63), 0x80 | (point & 63)];
  return [0xf0 | (point >> 18), 0x80 | ((point >> 12) & 63), 0x80 | ((point >> 6) & 63), 0x80 | (point & 63)];
}

/** Percent-encodes every WTF-8 byte of `part` outside `[A-Za-z0-9_-]`; every UTF-16 string maps to its own text. */
function encodeKeyPart(part: string): string {
  if (ALL_SAFE.test(part)) return part; // the common case (a request ID, most users): nothing to encode
  let out = '';
  for (let i = 0; i < part.length; i += 1) {
    let point = part.charCodeAt(i);
    const next = part.charCodeAt(i + 1);
    if (point >= 0xd800 && point <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      point = 0x10000 + ((point - 0xd800) << 10) + (next - 0xdc00);
      i += 1;
    }
    for (const byte of utf8Bytes(point))
      out += isSafe(byte) ? String.fromCharCode(byte) : `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
  }
  return out;
}

/** Checks a scope returned by the app's `scope` callback; throws a TypeError naming the field. */
export function assertScope(scope: unknown): asserts scope is Scope {
  if (typeof scope !== 'object' || scope === null) {
    throw new TypeError('answer-once: `scope` must return { user, session? } or a Response.');
  }
  const { user, session } = scope as { user?: unknown; session?: unknown };
  if (typeof user !== 'string' || user === '') {
    throw new TypeError('answer-once: `scope().user` must be a non-empty string.');
  }
  if (session !== undefined && typeof session !== 'string') {
    throw new TypeError('answer-once: `scope().session` must be a string when given.');
  }
}

/** The store key of one intent. `prefix` must not contain `{` or `}`. */
export function encodeKey(scope: Scope, requestId: string, prefix: string = DEFAULT_KEY_PREFIX): string {
  if (/[{}]/.test(prefix)) throw new TypeError('answer-once: `keyPrefix` must not contain `{` or `}`.');
  return `${prefix}{${encodeKeyPart(scope.user)}:${encodeKeyPart(scope.session ?? '')}:${encodeKeyPart(requestId)}}`;
}

const KEY_SHAPE = /^(.*\{[^{}]*):([A-Za-z0-9_-]*)\}$/;

/**
 * The scope part and the request ID of a key `encodeKey` built (`prefix{user:session` and
 * `id`), so a store can share its room out per scope and name the intent it dropped. A
 * key of another shape (a `runOnce` business key) is one scope of its own kind, `''`,
 * and its own ID.
 */
export function splitKey(key: string): { readonly scope: string; readonly requestId: string } {
  const match = KEY_SHAPE.exec(key);
  return match ? { scope: match[1] as string, requestId: match[2] as string } : { scope: '', requestId: key };
}
