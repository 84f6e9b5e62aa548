import { describe, expect, it } from 'vitest';
import {
  functionOption,
  MAX_TIMER_MS,
  numberOption,
  optionsObject,
  stringOption,
  timerOption,
} from '../../src/core/options.js';

describe('option checks', () => {
  it('return the value when it fits', () => {
    expect(numberOption(3, 'n')).toBe(3);
    expect(numberOption(0.5, 'n', { integer: false })).toBe(0.5);
    expect(timerOption(MAX_TIMER_MS, 't')).toBe(MAX_TIMER_MS);
    const f = () => 1;
    expect(functionOption(f, 'f')).toBe(f);
    expect(functionOption(undefined, 'f')).toBeUndefined();
    expect(stringOption('x', 's')).toBe('x');
    expect(optionsObject(undefined, 'options')).toEqual({});
  });

  it('name the option, what it must be and what came, in one format', () => {
    expect(() => numberOption(-1, 'retry.limit')).toThrow(
      new TypeError('answer-once: `retry.limit` must be an integer ≥ 0; got -1.'),
    );
    expect(() => numberOption(1.5, 'n', { min: 1, max: 9 })).toThrow('`n` must be an integer from 1 to 9; got 1.5.');
    expect(() => numberOption(Number.NaN, 'n', { integer: false })).toThrow('must be a finite number ≥ 0; got NaN.');
    expect(() => numberOption('3', 'n')).toThrow('got "3".');
    expect(() => functionOption(3, 'onEvent')).toThrow('answer-once: `onEvent` must be a function; got 3.');
    expect(() => functionOption(undefined, 'handler', false)).toThrow('`handler` must be a function; got undefined.');
    expect(() =>
      stringOption('a{b', 'prefix', 'a string without { or }', (s) => !/[{}]/.test(s), 'answer-once/redis'),
    ).toThrow('answer-once/redis: `prefix` must be a string without { or }; got "a{b".');
    expect(() => optionsObject(null as never, 'options')).toThrow('`options` must be an options object; got null.');
  });

  it('refuse a timer value setTimeout would fire at once', () => {
    expect(() => timerOption(9e9, 'leaseMs', 1)).toThrow(
      '`leaseMs` must be an integer from 1 to 2147483647; got 9000000000.',
    );
  });

  it('accept the bounds themselves and refuse infinities even when fractions are allowed', () => {
    expect(numberOption(1, 'n', { min: 1, max: 2 })).toBe(1);
    expect(numberOption(2, 'n', { min: 1, max: 2 })).toBe(2);
    expect(() => numberOption(Number.POSITIVE_INFINITY, 'n', { integer: false })).toThrow(
      '`n` must be a finite number ≥ 0; got Infinity.',
    );
    expect(() => numberOption(Number.NEGATIVE_INFINITY, 'n', { min: -5, integer: false })).toThrow('got -Infinity.');
    // Even with no upper bound.
    const unbounded = { max: Number.POSITIVE_INFINITY, integer: false };
    expect(() => numberOption(Number.POSITIVE_INFINITY, 'n', unbounded)).toThrow('got Infinity.');
  });

  it('say what came without echoing it whole: long strings cut at 40 characters, objects by kind', () => {
    const forty = 'x'.repeat(40);
    expect(() => numberOption(forty, 'n')).toThrow(`got "${forty}".`);
    expect(() => numberOption(`${forty}y`, 'n')).toThrow(`got "${forty}…".`);
    expect(() => numberOption(() => 1, 'n')).toThrow('got a function.');
    expect(() => numberOption([1], 'n')).toThrow('got an array.');
    expect(() => numberOption({ secret: 'token' }, 'n')).toThrow('got an object.');
  });

  it('refuse a non-string as a string, and take any object as options', () => {
    expect(() => stringOption(3, 'prefix')).toThrow(new TypeError('answer-once: `prefix` must be a string; got 3.'));
    expect(() => stringOption('', 'prefix', 'a non-empty string', (value) => value !== '')).toThrow(
      '`prefix` must be a non-empty string; got "".',
    );
    const options = { leaseMs: 1 };
    expect(optionsObject(options, 'options')).toBe(options);
    expect(() => optionsObject(undefined, 'options', false)).toThrow('`options` must be an options object; got undefined.');
    expect(() => optionsObject('fast' as never, 'options')).toThrow('`options` must be an options object; got "fast".');
  });
});
