/**
 * What the check compares: bodies as bytes (a replay is byte for byte, PROTOCOL.md § 7.3),
 * and the event-stream units of a streamed answer with their position ids (§ 14.4).
 */
import { parsePosition } from '../core/stream-protocol.js';

const LF = 0x0a;
const decoder = new TextDecoder();

/** `a` and `b` joined. */
export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}

/** `undefined` when `actual` is `expected` byte for byte; otherwise where they part, in words. */
export function byteDifference(actual: Uint8Array, expected: Uint8Array): string | undefined {
  const shorter = Math.min(actual.length, expected.length);
  let at = 0;
  while (at < shorter && actual[at] === expected[at]) at++;
  if (at === shorter && actual.length === expected.length) return undefined;
  const around = (bytes: Uint8Array) => JSON.stringify(decoder.decode(bytes.subarray(at, at + 24)));
  return `${actual.length} bytes where ${expected.length} were expected, parting at byte ${at} (${around(actual)} for ${around(expected)})`;
}

/** `bytes` as text, for messages and markers. */
export function text(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** One unit of an event stream as the server frames it (§ 14.4: each ends with a blank line). */
export interface EventUnit {
  /** Offset of the byte after the unit's closing blank line. */
  readonly end: number;
  /** Its `event:` field, if any. */
  readonly event: string | undefined;
  /** Its `id:` field as a position (`<g>.<N>`), if it is one. */
  readonly position: { generation: number; offset: number } | undefined;
}

/** The whole units at the start of `bytes` (a trailing partial unit is left out). */
export function eventUnits(bytes: Uint8Array): EventUnit[] {
  const units: EventUnit[] = [];
  let start = 0;
  for (let at = 0; at + 1 < bytes.length; at++) {
    if (bytes[at] !== LF || bytes[at + 1] !== LF) continue;
    const lines = decoder.decode(bytes.subarray(start, at)).split('\n');
    const field = (name: string) =>
      lines
        .find((line) => line.startsWith(`${name}:`))
        ?.slice(name.length + 1)
        .replace(/^ /, '');
    units.push({ end: at + 2, event: field('event'), position: parsePosition(field('id')) });
    start = at + 2;
    at++;
  }
  return units;
}
