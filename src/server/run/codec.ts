import { readUsage, type Usage } from '../usage.js';

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

/**
 * How `runOnce` keeps a reported usage beside the encoded result: a small JSON envelope
 * under a key no codec's own output is expected to start with. Without a report the
 * result is stored as the codec made it (as before usage existed).
 */
const RUN_ENVELOPE = 'answer-once/run@1';
const RUN_ENVELOPE_START = `{"${RUN_ENVELOPE}":`;

/** The stored result of a run: the codec's string, with `usage` when the run reported one. */
export function wrapRunResult(encoded: string, usage: Usage | undefined): string {
  return usage === undefined ? encoded : JSON.stringify({ [RUN_ENVELOPE]: encoded, usage });
}

/** A stored run result taken apart again: the codec's string, and the usage kept with it. */
export function unwrapRunResult(stored: string): { readonly encoded: string; readonly usage?: Usage } {
  if (stored.startsWith(RUN_ENVELOPE_START)) {
    try {
      const envelope = JSON.parse(stored) as Record<string, unknown>;
      const encoded = envelope[RUN_ENVELOPE];
      const usage = readUsage(envelope.usage);
      if (typeof encoded === 'string') return usage === undefined ? { encoded } : { encoded, usage };
    } catch {
      // Not our envelope after all: the codec's own output.
    }
  }
  return { encoded: stored };
}
