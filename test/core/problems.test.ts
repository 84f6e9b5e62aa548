import { describe, expect, it } from 'vitest';
import { problemType } from '../../src/core/problems.js';

describe('problemType', () => {
  it('names the problem type URI of PROTOCOL.md § 9 for a code', () => {
    expect(problemType('intent-failed')).toBe('https://answer-once.dev/problems/intent-failed');
  });
});
