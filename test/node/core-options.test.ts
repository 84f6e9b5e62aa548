import { describe, expect, it } from 'vitest';
import { functionOption, MAX_TIMER_MS, numberOption, optionsObject, stringOption, timerOption } from '../../src/core/options.js';

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
    expect(() => stringOption('a{b', 'prefix', 'a string without { or }', (s) => !/[{}]/.test(s), 'answer-once/redis')).toThrow(
      'answer-once/redis: `prefix` must be a string without { or }; got "a{b".',
    );
    expect(() => optionsObject(null as never, 'options')).toThrow('`options` must be an options object; got null.');
  });

  it('refuse a timer value setTimeout would fire at once', () => {
    expect(() => timerOption(9e9, 'leaseMs', 1)).toThrow('`leaseMs` must be an integer from 1 to 2147483647; got 9000000000.');
  });
});
