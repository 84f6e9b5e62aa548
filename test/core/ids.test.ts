import { isValidRequestId, newRequestId } from 'answer-once';
import { decodeTime } from 'ulid';
import { afterEach, describe, expect, it, vi } from 'vitest';

describe('newRequestId', () => {
  it('mints distinct, valid ULIDs stamped with the current time', () => {
    const before = Date.now();
    const ids = Array.from({ length: 2_000 }, newRequestId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(ids.every(isValidRequestId)).toBe(true);
    expect(decodeTime(ids[0]!)).toBeGreaterThanOrEqual(before);
    expect(decodeTime(ids.at(-1)!)).toBeLessThanOrEqual(Date.now());
  });

  it('spreads the random part over the whole alphabet', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i += 1) {
      for (const char of newRequestId().slice(10)) counts.set(char, (counts.get(char) ?? 0) + 1);
    }
    // 32,000 characters over 32 symbols: 1,000 each on average.
    expect(counts.size).toBe(32);
    for (const count of counts.values()) expect(count).toBeGreaterThan(800);
  });
});

describe('newRequestId randomness', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
  });

  it('fills one crypto.getRandomValues call for 256 IDs, and uses it from the first ID on', async () => {
    const fill = vi.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation((array) => {
      (array as Uint8Array).fill(0xff); // byte 255 → floor(255 / 256 × 32) = 31 → 'Z'
      return array;
    });
    vi.resetModules();
    const { newRequestId: fresh } = await import('../../src/core/ids.js');
    const ids = Array.from({ length: 256 }, fresh);
    expect(ids[0]!.slice(10)).toBe('Z'.repeat(16));
    expect(fill).toHaveBeenCalledTimes(1);
    fresh();
    expect(fill).toHaveBeenCalledTimes(2);
  });
});

describe('isValidRequestId', () => {
  it('accepts 8–128 characters of [A-Za-z0-9_-] and nothing else', () => {
    expect(isValidRequestId('abcd_-12')).toBe(true);
    expect(isValidRequestId('a'.repeat(128))).toBe(true);
    expect(isValidRequestId('short')).toBe(false);
    expect(isValidRequestId('a'.repeat(129))).toBe(false);
    expect(isValidRequestId('has space')).toBe(false);
    expect(isValidRequestId('"quoted-id"')).toBe(false);
  });
});
