/**
 * Where a stopped answer ends (PROTOCOL.md § 14.8): a stop that names the reader's
 * position (`stopAt` on the record) ends the stored answer there when the holder produced
 * more, so every later reader sees exactly what the stopping reader showed.
 */
import { concat } from '../../core/bytes.js';
import { stopMarker } from './sse-frame.js';

const LF = 0x0a;

/**
 * The end of the last whole unit at or before `at`: every unit of a framed event stream
 * ends with a blank line (§ 14.4), so a position from a client that is not a unit's end
 * still never cuts an event in two.
 */
function unitEnd(body: Uint8Array, at: number): number {
  for (let end = at; end >= 2; end -= 1) {
    if (body[end - 1] === LF && body[end - 2] === LF) return end;
  }
  return 0;
}

/**
 * The stored body of a stopped generation: `produced` (the answer body as produced,
 * without a stop marker) up to `stopAt` when it has more — at a unit's end for an event
 * stream — then, for an event stream, the stop marker positioned after what is kept.
 */
export function stoppedBody(produced: Uint8Array, stopAt: number | undefined, sse: boolean, generation: number): Uint8Array {
  const end = stopAt !== undefined && stopAt < produced.byteLength ? (sse ? unitEnd(produced, stopAt) : stopAt) : undefined;
  const kept = end === undefined ? produced : produced.subarray(0, end);
  if (!sse) return kept;
  const marker = stopMarker(generation, kept.byteLength);
  return concat([kept, marker], kept.byteLength + marker.byteLength);
}

/**
 * The bytes of `data` (which starts at `offset` of the generation) a reader may have
 * while the holder is stopping at `stopAt`: none past it.
 */
export function beforeStop(data: Uint8Array, offset: number, stopAt: number | undefined): Uint8Array {
  if (stopAt === undefined) return data;
  return data.subarray(0, Math.max(0, stopAt - offset));
}
