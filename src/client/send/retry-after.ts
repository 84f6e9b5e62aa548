/**
 * Parses `Retry-After` strictly (RFC 9110 § 10.2.3): delay-seconds (`1*DIGIT`) or an
 * IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 § 5.6.7). Anything else — `1.5`, `-5`,
 * `0x10`, `soon`, an impossible date or weekday — is `undefined`, so the caller falls back
 * to its backoff instead of reading it as "now" (`Date.parse('1.5')` is a date in 2001).
 * Returns milliseconds from `now`, never negative.
 */

const DELAY_SECONDS = /^\d+$/;

export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (DELAY_SECONDS.test(trimmed)) return Number(trimmed) * 1000;
  // `toUTCString()` writes exactly an IMF-fixdate (ECMA-262 § 21.4.4.43): a value is one
  // when it reads back unchanged, which also rules out 31 Feb, 24:00 and a wrong weekday.
  const date = Date.parse(trimmed);
  return Number.isNaN(date) || new Date(date).toUTCString() !== trimmed ? undefined : Math.max(0, date - now);
}
