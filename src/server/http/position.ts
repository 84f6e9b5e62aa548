/**
 * The position a request says it already has of an answer (PROTOCOL.md § 14.5):
 * `Last-Event-ID: <g>.<N>`, or `Range: bytes=N-` with `X-Idempotent-Generation: <g>`.
 */
import { GENERATION_HEADER, LAST_EVENT_ID_HEADER, RANGE_HEADER } from '../../core/headers.js';
import { parseCount, parsePosition } from '../../core/stream-protocol.js';

/** `by`: which header named it; `generation` is absent for a `Range` without the generation header. */
export interface RequestedPosition {
  readonly by: 'event-id' | 'range';
  readonly generation: number | undefined;
  readonly offset: number;
}

/** The request's position, or `undefined` when it names none (or names one badly: ignored). */
export function readPosition(headers: Headers): RequestedPosition | undefined {
  const rangeHeader = headers.get(RANGE_HEADER);
  const range = rangeHeader === null ? null : /^\s*bytes\s*=\s*(\d+)\s*-\s*$/i.exec(rangeHeader);
  const rangeOffset = parseCount(range?.[1]);
  if (rangeOffset !== undefined) {
    const generation = parseCount(headers.get(GENERATION_HEADER));
    return { by: 'range', generation, offset: rangeOffset };
  }
  const lastEventId = headers.get(LAST_EVENT_ID_HEADER);
  const position = lastEventId === null ? undefined : parsePosition(lastEventId);
  return position && { by: 'event-id', ...position };
}

/** Where a reader starts (PROTOCOL.md § 14.5's table), for generation `G` with `length` bytes so far. */
type Start =
  | { readonly kind: 'from'; readonly offset: number; readonly range: boolean }
  | { readonly kind: 'restart' }
  | { readonly kind: 'at-end' } // Last-Event-ID at the end of an ended generation: 204
  | { readonly kind: 'unsatisfiable' }; // Range beyond the bytes: 416

/**
 * Where a reader of generation `generation` starts, given the request's position and the
 * `length` bytes there are so far (`ended`: all of them).
 */
export function startOf(position: RequestedPosition | undefined, generation: number, length: number, ended: boolean): Start {
  if (!position) return { kind: 'from', offset: 0, range: false };
  // A live generation's log may lag its first caller by one batch: a position past the
  // logged bytes is waited for, not restarted.
  if (position.by === 'range') {
    if (position.generation !== undefined && position.generation !== generation) return { kind: 'restart' };
    if (ended && position.offset >= length) return { kind: 'unsatisfiable' };
    return { kind: 'from', offset: position.offset, range: true };
  }
  if (position.generation !== generation || (ended && position.offset > length)) return { kind: 'restart' };
  if (ended && position.offset === length) return { kind: 'at-end' };
  return { kind: 'from', offset: position.offset, range: false };
}
