/**
 * Reading what a streamed answer (PROTOCOL.md § 14) says about itself, on both sides:
 * the generation header, `Content-Range`, the event-stream media
 * type. (Header and event names are in ./headers.ts and ./stream-events.ts.) Pure.
 */

const COUNT = /^\d{1,16}$/;

/** `text` as a count of bytes or a generation, if it is 1–16 decimal digits and a safe integer. */
export function parseCount(text: string | null | undefined): number | undefined {
  if (typeof text !== 'string' || !COUNT.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** A generation header's value, or `undefined` when absent or not a positive integer. */
export function parseGeneration(value: string | null): number | undefined {
  const generation = parseCount(value?.trim());
  return generation === 0 ? undefined : generation;
}

/** A position's wire form `<g>.<N>` (§ 14.1) → its parts; `undefined` when it is not one (`g` must be > 0). */
export function parsePosition(text: string | null | undefined): { generation: number; offset: number } | undefined {
  const [generation, offset, extra] = (text ?? '').split('.');
  const g = parseCount(generation);
  const n = parseCount(offset);
  if (g === undefined || g === 0 || n === undefined || extra !== undefined) return undefined;
  return { generation: g, offset: n };
}

/** Whether a `Content-Type` value is `text/event-stream` (any case, parameters ignored, § 14.4). */
export function isEventStream(contentType: string | null): boolean {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'text/event-stream';
}

/** `Content-Range: bytes N-…` → `{ start: N }`; the unsatisfied form (`bytes *` + `/L`) → `{ length: L }`. */
export function parseContentRange(value: string | null): { start: number } | { length: number } | undefined {
  const match = /^\s*bytes\s+(?:(\d+)-\d+\/(?:\d+|\*)|\*\/(\d+))\s*$/i.exec(value ?? '');
  if (!match) return undefined;
  const start = parseCount(match[1]);
  if (start !== undefined) return { start };
  const length = parseCount(match[2]);
  return length === undefined ? undefined : { length };
}
