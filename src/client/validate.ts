/** Option checks shared by the client's normalisers; every failure names the option. */

const MAX_TIMEOUT = 2_147_483_647;

export function fail(option: string, expected: string): never {
  throw new TypeError(`answer-once: \`${option}\` must be ${expected}.`);
}

/** An integer in `[min, 2^31 - 1]` (timer-safe), or `fallback` when undefined. */
export function integer(value: unknown, option: string, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < min || (value as number) > MAX_TIMEOUT) {
    fail(option, `an integer ≥ ${min}`);
  }
  return value as number;
}

/** A function, or undefined. */
export function optionalFunction<T>(value: T, option: string): T {
  if (value !== undefined && typeof value !== 'function') fail(option, 'a function');
  return value;
}
