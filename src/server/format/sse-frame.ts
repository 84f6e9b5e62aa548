import type { EventSourceMessage } from 'eventsource-parser';
import type { ProblemCode } from '../../core/problems.js';

import { ERROR_EVENT, formatPosition, restartMarkerText, STOPPED_EVENT } from '../../core/stream-events.js';

const encoder = new TextEncoder();

/** The number of decimal digits of a non-negative safe integer. */
export function digits(n: number): number {
  let count = 1;
  for (let bound = 10; n >= bound && count < 16; bound *= 10) count += 1;
  return count;
}

/**
 * The position just after an event whose id names it (§ 14.4): the event's bytes but
 * its id's digits end at `fixed`, so N = fixed + digits(N). The smallest solution, found
 * by trying digit counts upwards.
 */
export function eventEnd(fixed: number): number {
  let end = fixed + digits(fixed);
  while (end - fixed !== digits(end)) end = fixed + digits(end);
  return end;
}

/**
 * One event as § 14.4 writes it, ending with `id: <generation>.<N>` where N is the
 * offset just after the event: `start` plus the event's own length, id line included.
 */
export function frameEvent(
  message: Pick<EventSourceMessage, 'event' | 'data'>,
  generation: number,
  start: number,
): Uint8Array {
  let fields = message.event === undefined ? '' : `event: ${message.event}\n`;
  for (const line of message.data.split('\n')) fields += `data: ${line}\n`;
  const body = encoder.encode(fields);
  const fixed = start + body.byteLength + `id: ${generation}.`.length + 2; // + the two LFs
  const id = encoder.encode(`id: ${formatPosition(generation, eventEnd(fixed))}\n\n`);
  const out = new Uint8Array(body.byteLength + id.byteLength);
  out.set(body);
  out.set(id, body.byteLength);
  return out;
}

/** The restart marker: the answer starts again with generation `generation` (§ 14.5). */
export function restartMarker(generation: number): Uint8Array {
  return encoder.encode(restartMarkerText(generation));
}

/** The error marker: this reader's answer ends here; resend (§ 14.7). */
export function errorMarker(status: number, code: ProblemCode = 'intent-failed'): Uint8Array {
  return encoder.encode(`event: ${ERROR_EVENT}\ndata: ${JSON.stringify({ code, status })}\n\n`);
}

/** The stop marker, the last event of a stopped answer's body (§ 14.8). */
export function stopMarker(generation: number, start: number): Uint8Array {
  return frameEvent({ event: STOPPED_EVENT, data: '{}' }, generation, start);
}
