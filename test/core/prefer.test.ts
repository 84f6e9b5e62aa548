import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from '../../src/client/send/retry-after.js';
import { formatPreferWait, parsePreferWait } from '../../src/core/prefer.js';

describe('Prefer: wait', () => {
  it('round-trips a wait in whole seconds', () => {
    expect(formatPreferWait(10.9)).toBe('wait=10');
    expect(parsePreferWait(formatPreferWait(25))).toBe(25);
  });

  it('finds wait among other preferences, in any case and with a quoted value', () => {
    expect(parsePreferWait('respond-async, WAIT = "7"')).toBe(7);
    expect(parsePreferWait('return=minimal;foo=bar, wait=3')).toBe(3);
  });

  it('ignores an absent or malformed wait', () => {
    expect(parsePreferWait(null)).toBeUndefined();
    expect(parsePreferWait('respond-async')).toBeUndefined();
    expect(parsePreferWait('wait=-1')).toBeUndefined();
    expect(parsePreferWait('wait=1.5')).toBeUndefined();
  });

  it('unquotes a whole quoted value only', () => {
    expect(parsePreferWait('wait="10"')).toBe(10);
    expect(parsePreferWait('wait=1"2"')).toBeUndefined();
    expect(parsePreferWait('wait="1"2')).toBeUndefined();
  });

  it('skips a wait preference with two values and reads the next one', () => {
    expect(parsePreferWait('wait=1=2')).toBeUndefined();
    expect(parsePreferWait('wait=1=2, wait=4')).toBe(4);
  });
});

describe('Retry-After', () => {
  it('reads delay-seconds as milliseconds', () => {
    expect(parseRetryAfter('3')).toBe(3000);
  });

  it('reads an HTTP-date relative to now, never negative', () => {
    const now = Date.parse('Mon, 30 Nov 2026 12:00:00 GMT');
    expect(parseRetryAfter('Mon, 30 Nov 2026 12:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Mon, 30 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('returns undefined for garbage', () => {
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
