import {
  FingerprintMismatchError,
  IdempotencyError,
  IntentInProgressError,
  isIdempotencyError,
  LeaseLostError,
  StoreUnavailableError,
} from 'answer-once/server';
import { describe, expect, it } from 'vitest';

/** What the other build's (CJS vs ESM) copy of an error looks like here: same fields, another class. */
function foreignCopy(name: string, code: unknown, branded: boolean): Error {
  const error = Object.assign(new Error('from the other build'), { name, code });
  if (branded) Object.defineProperty(error, Symbol.for('answer-once/server:IdempotencyError'), { value: true });
  return error;
}

describe('isIdempotencyError', () => {
  it('recognises every error answer-once/server throws', () => {
    for (const error of [
      new LeaseLostError('lost'),
      new IntentInProgressError('busy'),
      new FingerprintMismatchError('other body'),
      new StoreUnavailableError('down'),
    ]) {
      expect(isIdempotencyError(error)).toBe(true);
    }
  });

  it('recognises a copy from the other build by its brand, or by a known name with a code', () => {
    expect(isIdempotencyError(foreignCopy('Whatever', undefined, true))).toBe(true);
    expect(isIdempotencyError(foreignCopy('LeaseLostError', 'request-in-progress', false))).toBe(true);
  });

  it('refuses what merely looks like one', () => {
    expect(isIdempotencyError(foreignCopy('LeaseLostError', undefined, false))).toBe(false); // no code
    expect(isIdempotencyError(foreignCopy('LeaseLostError', 409, false))).toBe(false); // code not a string
    expect(isIdempotencyError(foreignCopy('TypeError', 'request-in-progress', false))).toBe(false); // unknown name
    expect(isIdempotencyError(foreignCopy('IdempotencyError', 'internal-error', false))).toBe(false); // the abstract base
    // Not an Error at all, though its fields match.
    expect(isIdempotencyError({ name: 'LeaseLostError', code: 'request-in-progress' })).toBe(false);
    expect(isIdempotencyError({ [Symbol.for('answer-once/server:IdempotencyError')]: 'yes' })).toBe(false);
    for (const value of [null, undefined, 'LeaseLostError', 409, new Error('plain')]) {
      expect(isIdempotencyError(value)).toBe(false);
    }
  });

  it('recognises an app’s own subclass, under its own name or the base’s', () => {
    class QuotaError extends IdempotencyError {
      override name = 'QuotaError';
      readonly code = 'internal-error';
      readonly status = 429;
    }
    class UnnamedError extends IdempotencyError {
      readonly code = 'internal-error';
      readonly status = 500;
    }
    expect(isIdempotencyError(new QuotaError('over quota'))).toBe(true);
    const unnamed = new UnnamedError('no name of its own');
    expect(isIdempotencyError(unnamed)).toBe(true);
    expect(String(unnamed)).toBe('IdempotencyError: no name of its own'); // what a log shows
  });
});
