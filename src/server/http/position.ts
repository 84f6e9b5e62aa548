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
  const range = /^\s*bytes\s*=\s*(\d+)\s*-\s*$/i.exec(headers.get(RANGE_HEADER) ?? '');
  const rangeOffset = parseCount(range?.[1]);
  if (rangeOffset !== undefined) {
    const generation = parseCount(headers.get(GENERATION_HEADER));
    return { by: 'range', generation, offset: rangeOffset };
  }
  const position = parsePosition(headers.get(LAST_EVENT_ID_HEADER));
  return position && { by: 'event-id', ...position };
}
