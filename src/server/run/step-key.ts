import { sha256 } from '../sha256.js';

/** The longest step name, in UTF-16 code units: a name, not a payload. */
const MAX_STEP_NAME_LENGTH = 128;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f]/;

/** `name` when it is a step name (a non-empty string of at most 128 printable characters); else a `TypeError` saying what is wrong. */
export function checkStepName(name: unknown): string {
  const problem =
    typeof name !== 'string'
      ? `must be a string, got ${typeof name}`
      : name.length === 0
        ? 'must not be empty'
        : name.length > MAX_STEP_NAME_LENGTH
          ? `must be at most ${MAX_STEP_NAME_LENGTH} characters, got ${name.length}`
          : CONTROL.test(name)
            ? `must not contain control characters, got ${JSON.stringify(name)}`
            : undefined;
  if (problem !== undefined) throw new TypeError(`answer-once: a step's name ${problem}.`);
  return name as string;
}

const encoder = new TextEncoder();

/**
 * The key of the `occurrence`-th (1, 2, …) step named `name` in a run of the intent at
 * `intentKey`: base64url (no padding) of SHA-256 over
 *
 *   "answer-once/step@1" LF intentKey LF name LF occurrence
 *
 * — 43 characters of `[A-Za-z0-9_-]`, derived, never minted: every run of the intent maps
 * the same step to the same key, fit to send as an outbound `Idempotency-Key`, and the
 * key does not reveal the intent's user or ID (PROTOCOL.md § 15.2). Neither the prefix nor
 * a name holds a line feed, so the framing is unambiguous.
 */
export async function stepKey(intentKey: string, name: string, occurrence: number): Promise<string> {
  const digest = await sha256(encoder.encode(`answer-once/step@1\n${intentKey}\n${name}\n${occurrence}`));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
