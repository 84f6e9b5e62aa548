import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../../src/client/send/retry-after.js';

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);

describe('parseRetryAfter', () => {
  it('reads delay-seconds as milliseconds', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter('3', NOW)).toBe(3_000);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120_000);
  });

  it('reads an IMF-fixdate as the time left until it, never negative', () => {
    expect(parseRetryAfter('Mon, 30 Nov 2026 12:00:05 GMT', NOW)).toBe(5_000);
    expect(parseRetryAfter('Mon, 30 Nov 2026 11:00:00 GMT', NOW)).toBe(0);
  });

  it.each([
    '1.5',
    '-5',
    '0x10',
    '1e3',
    '+5',
    'soon',
    '',
    '5 s',
    'Infinity',
    '2026-11-30T12:00:05Z',
    'Monday, 30-Nov-26 12:00:05 GMT',
    'Mon Nov 30 12:00:05 2026',
    'Mon, 31 Feb 2026 12:00:05 GMT',
    'Mon, 30 Nov 2026 24:00:00 GMT',
    'Mon, 30 Nov 2026 12:60:00 GMT',
    'Mon, 30 Nov 2026 12:00:60 GMT',
    'Mon, 00 Nov 2026 12:00:05 GMT',
    'Sun, 30 Nov 2026 12:00:05 GMT',
    'Mon, 30 Nov 2026 12:00:05 UTC',
    'mon, 30 nov 2026 12:00:05 gmt',
  ])('falls back (undefined) for %j, which is neither delay-seconds nor an IMF-fixdate', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });

  it('is undefined when the header is absent', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });

  it('round-trips every instant written as an IMF-fixdate (Date#toUTCString)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253_402_300_799 }), (seconds) => {
        const at = seconds * 1000;
        expect(parseRetryAfter(new Date(at).toUTCString(), 0)).toBe(at);
      }),
    );
  });

  it('reads every string of digits as that many seconds', () => {
    fc.assert(
      fc.property(fc.nat(), (n) => {
        expect(parseRetryAfter(String(n), NOW)).toBe(n * 1000);
      }),
    );
  });

  it('never returns a negative or non-finite delay, whatever the header says', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const delay = parseRetryAfter(value, NOW);
        if (delay !== undefined) expect(Number.isFinite(delay) && delay >= 0).toBe(true);
      }),
    );
  });

  // -0 is not drawn: String(-0) is '0', a valid delay.
  it('refuses every number that is not a non-negative integer', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.double({ noNaN: true }).filter((x) => !Number.isInteger(x) || x < 0),
          fc.integer({ max: -1 }),
        ),
        (x) => {
          expect(parseRetryAfter(String(x), NOW)).toBeUndefined();
        },
      ),
    );
  });
});
