/**
 * Parses `Retry-After` strictly (RFC 9110 § 10.2.3): delay-seconds (`1*DIGIT`) or an
 * IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, § 5.6.7). Anything else — `1.5`, `-5`,
 * `0x10`, `soon`, an impossible date — is `undefined`, so the caller falls back to its
 * backoff instead of reading it as "now" (`Date.parse('1.5')` is a date in 2001).
 * Returns milliseconds from `now`, never negative.
 */

const DELAY_SECONDS = /^\d+$/;
const IMF_FIXDATE =
  /^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const MONTHS = 'JanFebMarAprMayJunJulAugSepOctNovDec';

/** Epoch milliseconds of an IMF-fixdate, or `undefined` when it names no real instant. */
function parseImfFixdate(value: string): number | undefined {
  const match = IMF_FIXDATE.exec(value);
  if (!match) return undefined;
  const [, day, , year, hour, minute, second] = match.map(Number) as number[];
  const monthIndex = MONTHS.indexOf(match[2]!) / 3;
  if (minute! > 59 || second! > 59) return undefined;
  const time = Date.UTC(year!, monthIndex, day!, hour!, minute!, second!);
  // Date.UTC rolls what does not exist into what does (31 Feb → 3 Mar, 24:00 → the next
  // day, year 0050 → 1950): a day or a year that does not round-trip names no real instant.
  const date = new Date(time);
  if (date.getUTCDate() !== day || date.getUTCFullYear() !== year) return undefined;
  return time;
}

export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value == null) return undefined;
  const trimmed = value.trim();
  if (DELAY_SECONDS.test(trimmed)) return Number(trimmed) * 1000;
  const date = parseImfFixdate(trimmed);
  return date === undefined ? undefined : Math.max(0, date - now);
}
