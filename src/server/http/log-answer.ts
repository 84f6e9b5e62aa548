import { ATTACHED_HEADER, GENERATION_HEADER, RESTARTED_HEADER } from '../../core/headers.js';
import { parseHead } from '../format/answer-head.js';
import { restartMarker } from '../format/sse-frame.js';
import { beforeStop } from '../format/stop-cut.js';
import { answerGeneration, type LogSnapshot, type StreamStore } from '../store/stream-store.js';
import { followLog, headIsEventStream } from '../stream/log-follow.js';
import { type AnswerContext, withProtocolHeaders } from './answers.js';
import { type RequestedPosition, startOf } from './position.js';

/** The last byte position RFC 8673 uses for live content: "more is coming". */
const LIVE_LAST_BYTE = Number.MAX_SAFE_INTEGER;

/**
 * The attached answer to a live generation whose head is logged (§ 14.6), from the
 * request's position, then live. `undefined` when there is nothing to attach to yet (no
 * head of the record's answer generation, a dead lease) or the bytes asked for are no longer
 * kept (§ 14.10): the caller answers "still running" instead. `patienceMs`: how long the
 * reader waits for a record the store lost to be claimed again by its holder (the lease).
 */
export function attachToLog(
  store: StreamStore,
  key: string,
  snapshot: LogSnapshot,
  position: RequestedPosition | undefined,
  context: AnswerContext,
  patienceMs: number,
): Response | undefined {
  const { record, log } = snapshot;
  if (record?.state !== 'processing' || record.leaseExpiresAt <= Date.now()) return undefined;
  if (!log || log.generation !== answerGeneration(record)) return undefined;
  const { generation } = log;
  const head = parseHead(log.head);
  const sse = headIsEventStream(head.headers);
  const headers = new Headers(head.headers as [string, string][]);
  headers.set(ATTACHED_HEADER, 'true');
  headers.set(GENERATION_HEADER, String(generation));
  headers.set('Cache-Control', 'no-store');
  const start = startOf(position, generation, log.length, false);
  const offset = start.kind === 'from' ? start.offset : 0;
  if (offset < log.offset) return undefined; // trimmed away: § 14.10
  let status = head.status;
  if (start.kind === 'restart') headers.set(RESTARTED_HEADER, 'true');
  if (start.kind === 'from' && start.range) {
    status = 206;
    headers.set('Content-Range', `bytes ${offset}-${LIVE_LAST_BYTE}/*`);
  }
  // Empty when the position is past the logged bytes; nothing past where a stop ends the answer (§ 14.8).
  const first = beforeStop(log.data.subarray(offset - log.offset), offset, record.stopAt);
  const marker = start.kind === 'restart' && sse ? restartMarker(generation) : undefined;
  const body = followLog(store, key, { generation, offset }, { sse, first, marker, patienceMs });
  return withProtocolHeaders(new Response(body, { status, headers }), context);
}
