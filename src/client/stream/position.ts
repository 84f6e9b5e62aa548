/**
 * Where a reader is in a streamed answer, and the headers that ask for the rest from
 * there (PROTOCOL.md § 14.5). Its own module, so tab sharing can name a position without
 * loading the resumable body.
 */
import { GENERATION_HEADER, LAST_EVENT_ID_HEADER, RANGE_HEADER } from '../../core/headers.js';
import { formatPosition } from '../../core/stream-events.js';
import { type BodyMode, type BytePosition, bodyModeOf } from './byte-resume.js';

/**
 * How far a reader got in an answer body: the generation it belongs to (none on a store
 * without logs) and the offset just after the last byte handed on (events: the log
 * offset of the last whole unit, § 14.5). Plain data, so it can cross to another tab.
 */
export type BodyPosition = BytePosition;

/** The headers that ask for the answer from `at` on, for a body read in `mode`. */
export function headersAt(mode: BodyMode, { generation, offset }: BodyPosition): Record<string, string> {
  if (generation === undefined) return {};
  if (mode === 'events') return { [LAST_EVENT_ID_HEADER]: formatPosition(generation, offset) };
  return offset === 0 ? {} : { [RANGE_HEADER]: `bytes=${offset}-`, [GENERATION_HEADER]: String(generation) };
}

/**
 * The headers that ask for an answer from `at` on, for a body read as `response` was:
 * `Last-Event-ID` for an event stream, `Range` + generation for other logged bodies, none
 * for a replayed one (the bytes the reader has are skipped instead).
 */
export function positionHeaders(response: Response, at: BodyPosition): Record<string, string> {
  return headersAt(bodyModeOf(response), at);
}
