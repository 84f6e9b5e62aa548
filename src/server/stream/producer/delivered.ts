import { GENERATION_HEADER, RESTARTED_HEADER } from '../../../core/headers.js';
import { isNullBodyStatus } from '../../../core/null-body.js';

/** The last RFC 8673 byte position: live content ("more is coming"). */
const LIVE_LAST_BYTE = Number.MAX_SAFE_INTEGER;

/** The position the attempt's request named (§ 14.5): by `Last-Event-ID` or by `Range`. */
export interface CallerPosition {
  readonly by: 'event-id' | 'range';
  readonly generation: number | undefined;
  readonly offset: number;
}

/** Whether `position` names another generation than the answer's: the caller gets the restart (§ 14.5). */
export function restarts(position: CallerPosition | undefined, generation: number): boolean {
  return position?.generation !== undefined && position.generation !== generation;
}

/**
 * What the attempt that ran the work gets: the work's status and headers over `body`,
 * named by the answer's `generation` — from the caller's byte (206, live content) when it
 * continues an earlier generation's answer the caller named by `Range` (§ 14.5, § 14.12).
 */
export function delivered(
  response: Response,
  body: BodyInit | null,
  answer: { readonly generation: number; readonly own: number; readonly position: CallerPosition | undefined },
): Response {
  const { generation, position } = answer;
  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  const ranged = position?.by === 'range' && position.generation === generation && generation !== answer.own;
  // Its own copy of the headers.
  const out = new Response(
    isNullBodyStatus(response.status) ? null : body,
    ranged ? { ...init, status: 206, statusText: '' } : init,
  );
  out.headers.delete('content-length');
  out.headers.set(GENERATION_HEADER, String(generation));
  if (restarts(position, generation)) out.headers.set(RESTARTED_HEADER, 'true');
  if (ranged) out.headers.set('Content-Range', `bytes ${position.offset}-${LIVE_LAST_BYTE}/*`);
  return out;
}
