/**
 * The one way every entry checks its options: each check returns the value or throws a
 * `TypeError` in one format — "answer-once: `<option>` must be <expected>; got <value>." —
 * so a bad option reads the same whichever entry rejected it.
 */

/** The longest delay `setTimeout`/`setInterval` honour (2³¹−1 ms); longer ones fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/** Throws the `TypeError` for `option`, naming what was expected and what came. */
export function invalidOption(option: string, expected: string, got: unknown, library = 'answer-once'): never {
  throw new TypeError(`${library}: \`${option}\` must be ${expected}; got ${describe(got)}.`);
}

/** Bounds of {@link numberOption}. */
export interface NumberBounds {
  /** @default 0 */
  readonly min?: number;
  /** @default Number.MAX_SAFE_INTEGER */
  readonly max?: number;
  /** Whole numbers only. @default true */
  readonly integer?: boolean;
}

/** A number within `bounds` (an integer unless `integer: false`). */
export function numberOption(value: unknown, option: string, bounds: NumberBounds = {}, library?: string): number {
  const { min = 0, max = Number.MAX_SAFE_INTEGER, integer = true } = bounds;
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (!integer || Number.isInteger(value)) &&
    value >= min &&
    value <= max;
  if (!ok) {
    const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
    invalidOption(option, `${integer ? 'an integer' : 'a finite number'} ${range}`, value, library);
  }
  return value as number;
}

/** Milliseconds a timer can wait: an integer from `min` to 2³¹−1. */
export function timerOption(value: unknown, option: string, min = 0, library?: string): number {
  return numberOption(value, option, { min, max: MAX_TIMER_MS }, library);
}

/** A function, or `undefined` when `optional`. */
export function functionOption<T>(value: T, option: string, optional = true, library?: string): T {
  if ((value !== undefined || !optional) && typeof value !== 'function') invalidOption(option, 'a function', value, library);
  return value;
}

/** A string that `valid` accepts (any string without `valid`). */
export function stringOption(
  value: unknown,
  option: string,
  expected = 'a string',
  valid?: (value: string) => boolean,
  library?: string,
): string {
  if (typeof value !== 'string' || (valid !== undefined && !valid(value))) invalidOption(option, expected, value, library);
  return value;
}

/** The options argument itself: an object, or `undefined` when `optional`. */
export function optionsObject<T extends object>(value: T | undefined, what: string, optional = true, library?: string): T {
  if (value === undefined && optional) return {} as T;
  if (typeof value !== 'object' || value === null) invalidOption(what, 'an options object', value, library);
  return value;
}

/** Whether `value` is an object with every one of `methods`: a client or a pool the caller hands in. */
export function hasMethods(value: unknown, methods: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  return methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
}

/** `true` or `false`. */
export function booleanOption(value: unknown, option: string, library?: string): boolean {
  if (typeof value !== 'boolean') invalidOption(option, '`true` or `false`', value, library);
  return value;
}
