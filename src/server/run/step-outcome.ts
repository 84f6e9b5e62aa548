import { readUsage, type Usage } from '../usage.js';

/**
 * A step's outcome: its value, or the error it threw (name and message; the class and the
 * stack are not kept), with the usage it reported — absent when none was reported (unknown,
 * never 0).
 */
export type StepOutcome =
  | { readonly ok: true; readonly value: unknown; readonly usage?: Usage }
  | { readonly ok: false; readonly error: Error; readonly usage?: Usage };

/**
 * The stored form (PROTOCOL.md § 15.3), one JSON object: `v` the value (absent for
 * `undefined`) or `e` `{ name, message }`; `u` the usage when reported; `k` the step's
 * kind when given.
 */
interface StoredOutcome {
  readonly v?: unknown;
  readonly e?: { readonly name: string; readonly message: string };
  readonly u?: Usage;
  readonly k?: string;
}

/**
 * The outcome as the string a store keeps. Throws a `TypeError` when the value is not
 * JSON (a `BigInt`, a cycle): nothing is recorded then.
 */
export function encodeStepOutcome(outcome: StepOutcome, kind: string | undefined): string {
  const stored: StoredOutcome = {
    ...(outcome.ok ? { v: outcome.value } : { e: errorShape(outcome.error) }),
    ...(outcome.usage === undefined ? {} : { u: outcome.usage }),
    ...(kind === undefined ? {} : { k: kind }),
  };
  return JSON.stringify(stored);
}

function errorShape(error: unknown): { name: string; message: string } {
  return error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) };
}

/** A stored outcome read back; one that is not an outcome reads as an error saying so. */
export function decodeStepOutcome(stored: string): StepOutcome {
  let parsed: StoredOutcome;
  try {
    parsed = JSON.parse(stored) as StoredOutcome;
  } catch {
    return { ok: false, error: new Error(`answer-once: a recorded step outcome is not JSON: ${stored.slice(0, 80)}`) };
  }
  const usage = readUsage(parsed.u);
  const withUsage = usage === undefined ? {} : { usage };
  if (parsed.e === undefined) return { ok: true, value: parsed.v, ...withUsage };
  const error = new Error(String(parsed.e.message));
  error.name = String(parsed.e.name);
  return { ok: false, error, ...withUsage };
}

const encoder = new TextEncoder();

/** The UTF-8 size of `text`, counted only when it may exceed `limit` (3 bytes per code unit at most). */
export function exceedsBytes(text: string, limit: number): number | undefined {
  if (text.length * 3 <= limit) return undefined;
  const bytes = encoder.encode(text).byteLength;
  return bytes > limit ? bytes : undefined;
}
