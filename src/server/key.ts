/**
 * Store keys: (user, session, requestId) → one string, injectively, inside a Redis
 * Cluster hash tag so every key a store derives from it lands on one slot.
 *
 *   answer-once:{<user>:<session>:<requestId>}
 *
 * Each part is percent-encoded over its UTF-8 bytes, keeping only `[A-Za-z0-9_-]`, so
 * `:`, `{`, `}` and `%` never appear raw inside a part: `a:b`+`c` and `a`+`b:c` differ.
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

const encoder = new TextEncoder();
const HEX = '0123456789ABCDEF';

/** Percent-encodes every UTF-8 byte outside `[A-Za-z0-9_-]` (lone surrogates become U+FFFD). */
export function encodeKeyPart(part: string): string {
  let out = '';
  for (const byte of encoder.encode(part)) {
    const safe =
      (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a) ||
      byte === 0x2d || byte === 0x5f;
    out += safe ? String.fromCharCode(byte) : `%${HEX[byte >> 4]}${HEX[byte & 15]}`;
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
  const parts = [scope.user, scope.session ?? '', requestId].map(encodeKeyPart);
  return `${prefix}{${parts.join(':')}}`;
}
