import {
  ATTACHED_HEADER,
  GENERATION_HEADER,
  REPLAYED_HEADER,
  RESTARTED_HEADER,
  STOPPED_HEADER,
} from '../../core/headers.js';
import { parseHead } from '../format/answer-head.js';
import { type AnswerContext, withProtocolHeaders } from './answers.js';
import { followLog, headIsEventStream } from '../stream/log-follow.js';
import type { RequestedPosition } from './position.js';
import { restartMarker } from '../format/sse-frame.js';
import { beforeStop } from '../format/stop-cut.js';
import type { CompletedRecord } from '../store/store.js';
import { parseStoredResponse, storedBody } from '../format/stored-response.js';
import type { LogSnapshot, StreamStore } from '../store/stream-store.js';

/** The last byte position RFC 8673 uses for live content: "more is coming". */
const LIVE_LAST_BYTE = Number.MAX_SAFE_INTEGER;

/** Where a reader starts (PROTOCOL.md § 14.5's table), for generation `G` with `length` bytes so far. */
type Start =
  | { readonly kind: 'from'; readonly offset: number; readonly range: boolean }
  | { readonly kind: 'restart' }
  | { readonly kind: 'at-end' } // Last-Event-ID at the end of an ended generation: 204
  | { readonly kind: 'unsatisfiable' }; // Range beyond the bytes: 416

function startOf(position: RequestedPosition | undefined, generation: number, length: number, ended: boolean): Start {
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

function prefixed(marker: Uint8Array | undefined, body: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  if (!marker) return body;
  const out = new Uint8Array(marker.byteLength + body.byteLength);
  out.set(marker);
  out.set(body, marker.byteLength);
  return out;
}

/**
 * The replay of a COMPLETED record from the request's position (§ 14.5): whole, a 206
 * tail, a 204/416 at the end, or a restart. `undefined` for a record written without a
 * generation or one not replayable: those are answered as in 0.1 (§ 7.3, § 14.11).
 */
export function replayFromPosition(
  record: CompletedRecord,
  position: RequestedPosition | undefined,
  context: AnswerContext,
): Response | undefined {
  const { generation } = record;
  if (generation === undefined || position === undefined) return undefined;
  const stored = parseStoredResponse(record.result);
  if (!stored.replayable) return undefined;
  const body = storedBody(stored);
  const bytes = body ?? new Uint8Array(0);
  const headers = new Headers(stored.headers as [string, string][]);
  headers.set(REPLAYED_HEADER, 'true');
  headers.set(GENERATION_HEADER, String(generation));
  if (stored.stopped) headers.set(STOPPED_HEADER, 'true');
  const start = startOf(position, generation, bytes.byteLength, true);
  const answer = (payload: BodyInit | null, status: number): Response =>
    withProtocolHeaders(new Response(payload, { status, headers }), context);
  switch (start.kind) {
    case 'at-end':
      return answer(null, 204);
    case 'unsatisfiable':
      headers.set('Content-Range', `bytes */${bytes.byteLength}`);
      return answer(null, 416);
    case 'restart': {
      headers.set(RESTARTED_HEADER, 'true');
      const marker = headIsEventStream(stored.headers) ? restartMarker(generation) : undefined;
      return answer(body === null && !marker ? null : prefixed(marker, bytes), stored.status);
    }
    case 'from':
      if (!start.range) return answer(start.offset === 0 ? body : bytes.slice(start.offset), stored.status);
      headers.set('Content-Range', `bytes ${start.offset}-${bytes.byteLength - 1}/${bytes.byteLength}`);
      return answer(bytes.slice(start.offset), 206);
  }
}

/**
 * The attached answer to a live generation whose head is logged (§ 14.6), from the
 * request's position, then live. `undefined` when there is nothing to attach to yet (no
 * head of the record's generation, a dead lease) or the bytes asked for are no longer
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
  if (!log || log.generation !== record.generation) return undefined;
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
