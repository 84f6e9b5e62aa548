/**
 * The table of problem codes (src/core/problems.ts) and what it decides: PROTOCOL.md § 9
 * lists exactly its codes at their statuses, and what a client does after an answer is
 * its code's row at that code's status, else what the status means.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nextAfter, PROBLEMS, problemType } from '../../src/core/problems.js';

const RETRY = [408, 425, 429, 500, 502, 503, 504];

/** The `code` → status column of PROTOCOL.md § 9's table. */
function protocolTable(): Record<string, string> {
  const text = readFileSync(new URL('../../PROTOCOL.md', import.meta.url), 'utf8');
  const section = text.slice(text.indexOf('\n## 9. Errors'), text.indexOf('\n## 10.'));
  const rows = [...section.matchAll(/^\| `([a-z-]+)` \| (\d{3}|\dxx) \|/gm)];
  return Object.fromEntries(rows.map(([, code, status]) => [code!, status!]));
}

describe('problemType', () => {
  it('names the problem type URI of PROTOCOL.md § 9 for a code', () => {
    expect(problemType('intent-failed')).toBe('https://answer-once.dev/problems/intent-failed');
  });
});

describe('the problem table', () => {
  it('is the table of PROTOCOL.md § 9: the same codes, each at its status (a failed attempt at any 5xx)', () => {
    const table = Object.fromEntries(
      Object.entries(PROBLEMS).map(([code, row]) => [
        code,
        'anyStatus' in row ? `${String(row.status)[0]}xx` : `${row.status}`,
      ]),
    );
    expect(protocolTable()).toEqual(table);
  });
});

describe('nextAfter', () => {
  it.each([
    [422, 'request-id-reused', 'final'],
    [409, 'intent-exhausted', 'new-intent'],
    [409, 'request-in-progress', 'in-progress'],
    [409, undefined, 'in-progress'],
    [409, 'edit-conflict', 'final'],
    [503, 'intent-failed', 'resend'],
    [400, 'intent-failed', 'resend'],
    [404, 'intent-not-found', 'resend'],
    [400, 'request-body-incomplete', 'resend'],
    [410, 'intent-not-found', 'final'],
    [503, 'store-unavailable', 'retry'],
    [500, 'request-id-reused', 'retry'],
    [404, undefined, 'final'],
    [413, undefined, 'final'],
    [502, undefined, 'retry'],
  ] as const)('answers %i %s with %s', (status, code, next) => {
    expect(nextAfter(status, code, RETRY)).toBe(next);
  });

  it('retries a retryable row only at a status the client retries', () => {
    expect(nextAfter(503, 'store-unavailable', [500])).toBe('final');
    expect(nextAfter(422, 'request-id-reused', [422])).toBe('final');
  });
});
