/** Turns a worker's result into the opaque string a store keeps, and back. */
export interface Codec<T> {
  encode(value: T): string;
  decode(stored: string): T;
}

/** The default codec: `JSON.stringify` / `JSON.parse`. `undefined` is stored as `null`. */
export const jsonCodec: Codec<unknown> = {
  encode: (value) => JSON.stringify(value) ?? 'null',
  decode: (stored) => JSON.parse(stored) as unknown,
};

/** How `runOnce` stores a thrown error: its name and message, never its stack. */
export function encodeError(error: unknown): string {
  const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
  return JSON.stringify({ name, message });
}

/** The stored error as an `Error` again (the original class is not restored). */
export function decodeError(stored: string): Error {
  try {
    const { name, message } = JSON.parse(stored) as { name?: unknown; message?: unknown };
    const error = new Error(typeof message === 'string' ? message : stored);
    if (typeof name === 'string') error.name = name;
    return error;
  } catch {
    return new Error(stored);
  }
}
