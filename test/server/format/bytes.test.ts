import { describe, expect, it } from 'vitest';
import { ByteRuns } from '../../../src/server/format/bytes.js';

describe('ByteRuns', () => {
  const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);

  it('joins views of one buffer that continue each other, of other buffers, and gaps, in order', () => {
    const shared = new TextEncoder().encode('abcdefgh');
    const runs = new ByteRuns();
    runs.push(shared.subarray(0, 2)); // "ab"
    runs.push(shared.subarray(2, 3)); // "c", continuing "ab"
    runs.push(shared.subarray(5, 6)); // "f": the same buffer, after a gap
    runs.push(new TextEncoder().encode('XY')); // another buffer
    runs.push(shared.subarray(6, 8)); // "gh": back to the first buffer
    expect(runs.byteLength).toBe(8);
    expect(text(runs.join())).toBe('abcfXYgh');
  });

  it('joins to no bytes when nothing was pushed', () => {
    expect(new ByteRuns().join()).toEqual(new Uint8Array(0));
  });
});
