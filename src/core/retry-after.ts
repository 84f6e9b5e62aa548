/**
 * Parses `Retry-After` (RFC 9110 § 10.2.3): delay-seconds or an HTTP-date.
 * Returns milliseconds from `now`, never negative, or `undefined` when absent or invalid.
 */
export function parseRetryAfter(
  value: string | null | undefined,
  now: number = Date.now(),
): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
