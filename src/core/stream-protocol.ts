/**
 * The streamed-answer vocabulary of PROTOCOL.md § 14 that a client needs: the headers a
 * reconnect carries and an answer comes back with, the three marker events, positions.
 * Pure: no I/O, no framework.
 */

/** `Last-Event-ID: <g>.<N>`: the position an event-stream reader already has (§ 14.5). */
export const LAST_EVENT_ID_HEADER = 'Last-Event-ID';
/** `Range: bytes=N-`: the position any other reader already has (§ 14.5). */
export const RANGE_HEADER = 'Range';
/** The generation a body belongs to, on answers and on a `Range` request (§ 14.3, § 14.5). */
export const GENERATION_HEADER = 'X-Idempotent-Generation';
/** `true`: the answer is still being produced by another attempt (§ 14.6). */
export const ATTACHED_HEADER = 'X-Idempotent-Attached';
/** `true`: the position asked for was of another generation; the body starts again (§ 14.5). */
export const RESTARTED_HEADER = 'X-Idempotent-Restarted';
/** `true`: the replayed answer was stopped (§ 14.8). */
export const STOPPED_HEADER = 'X-Idempotent-Stopped';

/** The restart marker's event type: the answer so far is void, it starts again (§ 14.5). */
export const RESTART_EVENT = 'answer-once.restart';
/** The error marker's event type: this reader's answer ends here; resend (§ 14.7). */
export const ERROR_EVENT = 'answer-once.error';
/** The stop marker's event type: the last event of a stopped answer's body (§ 14.8). */
export const STOPPED_EVENT = 'answer-once.stopped';

/** A point in an answer: just after `offset` bytes of generation `generation`'s body (§ 14.1). */
export interface Position {
  readonly generation: number;
  readonly offset: number;
}

const COUNT = /^\d{1,16}$/;

function count(text: string | undefined): number | undefined {
  if (text === undefined || !COUNT.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** `<g>.<N>` → a position; anything else (an id that is not ours) → `undefined`. */
export function parsePosition(id: string | null | undefined): Position | undefined {
  const parts = (id ?? '').trim().split('.');
  if (parts.length !== 2) return undefined;
  const generation = count(parts[0]);
  const offset = count(parts[1]);
  return generation === undefined || generation === 0 || offset === undefined ? undefined : { generation, offset };
}

export function formatPosition({ generation, offset }: Position): string {
  return `${generation}.${offset}`;
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
