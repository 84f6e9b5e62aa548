/**
 * Reading what a streamed answer (PROTOCOL.md § 14) says about itself, for the client:
 * the generation header, `Content-Range`, the event-stream media
 * type. (Header and event names are in ./headers.ts and ./stream-events.ts.) Pure.
 */

const COUNT = /^\d{1,16}$/;

function count(text: string | undefined): number | undefined {
  if (text === undefined || !COUNT.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** A generation header's value, or `undefined` when absent or not a positive integer. */
export function parseGeneration(value: string | null): number | undefined {
  const generation = count(value?.trim());
  return generation === 0 ? undefined : generation;
}

/** Whether a `Content-Type` value is `text/event-stream` (any case, parameters ignored, § 14.4). */
export function isEventStream(contentType: string | null): boolean {
  return contentType?.split(';', 1)[0]?.trim().toLowerCase() === 'text/event-stream';
}

/** `Content-Range: bytes N-…` → `{ start: N }`; the unsatisfied form (`bytes *` + `/L`) → `{ length: L }`. */
export function parseContentRange(value: string | null): { start: number } | { length: number } | undefined {
  const match = /^\s*bytes\s+(?:(\d+)-\d+\/(?:\d+|\*)|\*\/(\d+))\s*$/i.exec(value ?? '');
  if (!match) return undefined;
  const start = count(match[1]);
  if (start !== undefined) return { start };
  const length = count(match[2]);
  return length === undefined ? undefined : { length };
}
