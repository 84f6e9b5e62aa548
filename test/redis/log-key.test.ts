/**
 * The name of an intent's answer log: on its record's Cluster slot, or refused by name
 * when no name can be (src/redis/log-key.ts). The Redis suites check the slots on real
 * servers; these are the names.
 */
import { describe, expect, it } from 'vitest';
import { logKeyOf } from '../../src/redis/log-key.js';

describe('logKeyOf', () => {
  it('keeps a key’s hash tag and adds the suffix after it', () => {
    expect(logKeyOf('answer-once:{user::id}')).toBe('answer-once:{user::id}:log');
    expect(logKeyOf('{user::id}:x')).toBe('{user::id}:x:log');
    // Redis's tag is the first `{` and the first `}` after it; a `}` before the `{` is plain text.
    expect(logKeyOf('x}{tag}')).toBe('x}{tag}:log');
  });

  it('wraps a key without a hash tag in one, so the log hashes as the whole key', () => {
    expect(logKeyOf('plain-key')).toBe('{plain-key}:log');
  });

  it('refuses, naming `key`, a key with a `}` but no `{` before it: no log name shares its slot', () => {
    expect(() => logKeyOf('user}1')).toThrow(TypeError);
    expect(() => logKeyOf('user}1')).toThrow(/`key`/);
    expect(() => logKeyOf('}{')).toThrow(/`key`/);
  });

  it('refuses a key whose only tag is empty (`{}`: Redis then hashes the whole key)', () => {
    expect(() => logKeyOf('a{}b')).toThrow(/`key`/);
  });
});
