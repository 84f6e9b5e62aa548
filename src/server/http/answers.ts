import {
  GENERATION_HEADER,
  LOCATION_HEADER,
  PREFERENCE_APPLIED_HEADER,
  REPLAYED_HEADER,
  REQUEST_ID_HEADER,
  RESTARTED_HEADER,
  RETRY_AFTER_HEADER,
  STOPPED_HEADER,
} from '../../core/headers.js';
import { formatPreferWait } from '../../core/prefer.js';
import { IntentExhaustedError } from '../errors.js';
import { restartMarker } from '../format/sse-frame.js';
import {
  parseStoredFailure,
  parseStoredResponse,
  type StoredFailure,
  type StoredResponse,
  storedBody,
} from '../format/stored-response.js';
import { problemResponse } from '../problem.js';
import { isExhausted } from '../run/bound.js';
import type { CompletedRecord, IdempotencyRecord } from '../store/store.js';
import { answerGeneration } from '../store/stream-store.js';
import { headIsEventStream } from '../stream/log-follow.js';
import type { ResolvedHandlerOptions } from './handler-options.js';
import { type RequestedPosition, startOf } from './position.js';

/** Per-answer facts: the intent, and the `Prefer: wait` the server applied (seconds). */
export interface AnswerContext {
  readonly requestId: string;
  readonly waitedSeconds: number | undefined;
  /** The status route answers "running" with 202 whatever `inProgressStatus` says. */
  readonly statusRoute: boolean;
}

type AnswerOptions = Pick<ResolvedHandlerOptions, 'statusPath' | 'inProgressStatus' | 'retryAfterSeconds'>;

/** Adds `X-Request-Id`, and `Preference-Applied` when the request was held by `Prefer: wait`. */
export function withProtocolHeaders(response: Response, context: AnswerContext): Response {
  response.headers.set(REQUEST_ID_HEADER, context.requestId);
  if (context.waitedSeconds !== undefined) {
    response.headers.set(PREFERENCE_APPLIED_HEADER, formatPreferWait(context.waitedSeconds));
  }
  return response;
}

/**
 * The stored answer again, marked `X-Idempotent-Replayed: true`; 410 for one too large to
 * have been kept (§ 7.3). A log-keeping store's answers name their generation (§ 14.3) and
 * are replayed from the request's `position` (§ 14.5): whole, a 206 tail, a 204/416 at
 * the end, or a restart. One written without a generation is replayed whole (§ 14.11).
 */
export function replayAnswer(record: CompletedRecord, context: AnswerContext, position?: RequestedPosition): Response {
  const { stored, body } = storedAnswerOf(record);
  if (!stored.replayable) {
    const response = problemResponse('response-not-replayable', {
      title: 'answer-once: this intent was answered, but its answer was too large to keep for replay.',
      requestId: context.requestId,
      extensions: { answeredStatus: stored.status },
      headers: { [REPLAYED_HEADER]: 'true' },
    });
    return withProtocolHeaders(response, context);
  }
  // A continued generation's answer is the one it continued, positions and all (§ 14.12).
  const generation = answerGeneration(record);
  // Set on the answer's own headers once it is made: the stored ones are copied once, not twice.
  const extra: [string, string][] = [[REPLAYED_HEADER, 'true']];
  if (generation !== undefined) extra.push([GENERATION_HEADER, String(generation)]);
  if (stored.stopped) extra.push([STOPPED_HEADER, 'true']);
  const answer = (payload: BodyInit | null, status: number): Response => {
    // Appended one by one: an init's header list is converted pair by pair anyway, and more slowly.
    const response = new Response(payload, { status });
    const { headers } = response;
    // The stored headers name the answer's type; a runtime's own Response may have added a
    // default one for the bytes (@hono/node-server's says text/plain), which would join it.
    headers.delete('content-type');
    for (const [name, value] of stored.headers) headers.append(name, value);
    for (const [name, value] of extra) headers.set(name, value);
    return withProtocolHeaders(response, context);
  };
  if (generation === undefined || position === undefined) return answer(body, stored.status);
  const bytes = body ?? new Uint8Array(0);
  const start = startOf(position, generation, bytes.byteLength, true);
  switch (start.kind) {
    case 'at-end':
      return answer(null, 204);
    case 'unsatisfiable':
      extra.push(['Content-Range', `bytes */${bytes.byteLength}`]);
      return answer(null, 416);
    case 'restart': {
      extra.push([RESTARTED_HEADER, 'true']);
      const marker = headIsEventStream(stored.headers) ? restartMarker(generation) : undefined;
      return answer(body === null && !marker ? null : prefixed(marker, bytes), stored.status);
    }
    case 'from':
      if (!start.range) return answer(start.offset === 0 ? body : bytes.slice(start.offset), stored.status);
      extra.push(['Content-Range', `bytes ${start.offset}-${bytes.byteLength - 1}/${bytes.byteLength}`]);
      return answer(bytes.slice(start.offset), 206);
  }
}

/** A completed record's answer and its body bytes, parsed once per record object. */
interface ParsedAnswer {
  readonly stored: StoredResponse;
  readonly body: Uint8Array<ArrayBuffer> | null;
}

/**
 * Parsed answers by record: a store that hands out the same record again (`MemoryStore`
 * keeps the object it wrote) replays it from its bytes without parsing its JSON or
 * encoding its body again. A `Response` copies the bytes it is given, so one parse serves
 * every replay.
 */
const parsedAnswers = new WeakMap<CompletedRecord, ParsedAnswer>();

function storedAnswerOf(record: CompletedRecord): ParsedAnswer {
  let parsed = parsedAnswers.get(record);
  if (!parsed) {
    const stored = parseStoredResponse(record.result);
    parsed = { stored, body: stored.replayable ? storedBody(stored) : null };
    parsedAnswers.set(record, parsed);
  }
  return parsed;
}

function prefixed(marker: Uint8Array | undefined, body: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  if (!marker) return body;
  const out = new Uint8Array(marker.byteLength + body.byteLength);
  out.set(marker);
  out.set(body, marker.byteLength);
  return out;
}

/** "Yours is running": 202 + `Location` + `Retry-After`, or the draft's 409 problem. */
export function inProgressAnswer(context: AnswerContext, options: AnswerOptions): Response {
  const location = `${options.statusPath}/${context.requestId}`;
  const headers = { [LOCATION_HEADER]: location, [RETRY_AFTER_HEADER]: String(options.retryAfterSeconds) };
  const response =
    options.inProgressStatus === 409 && !context.statusRoute
      ? problemResponse('request-in-progress', {
          title: 'answer-once: another attempt of this intent is still running.',
          requestId: context.requestId,
          headers,
        })
      : Response.json(
          { requestId: context.requestId, state: 'processing', location },
          { status: 202, headers: { ...headers, 'Cache-Control': 'no-store' } },
        );
  return withProtocolHeaders(response, context);
}

/** "The attempt failed: resend the same request with the same ID" (a 5xx the client retries). */
export function failedAnswer(failure: StoredFailure, context: AnswerContext, detail?: string): Response {
  const response = problemResponse('intent-failed', {
    status: failure.status >= 500 ? failure.status : 503,
    title: 'answer-once: this attempt of the intent failed; resend the same request with the same ID.',
    requestId: context.requestId,
    ...(detail === undefined ? {} : { detail }),
    ...(failure.retryAfter === undefined ? {} : { headers: { [RETRY_AFTER_HEADER]: failure.retryAfter } }),
  });
  return withProtocolHeaders(response, context);
}

/** "This intent ran `maxRuns` times; it will not run again": the final 409 `intent-exhausted` (§ 5.7). */
export function exhaustedAnswer(context: AnswerContext): Response {
  const error = new IntentExhaustedError(
    'answer-once: this intent ran as many times as the server allows one intent; it will not run again. A new try is a new intent.',
    { requestId: context.requestId },
  );
  return withProtocolHeaders(error.getResponse(), context);
}

/** The status route's answer for a record (or its absence) in the caller's scope. */
export function statusAnswer(
  record: IdempotencyRecord | null,
  context: AnswerContext,
  options: AnswerOptions,
  now: number,
): Response {
  if (record === null) {
    return problemResponse('intent-not-found', {
      title: 'answer-once: no intent with this ID is known here.',
      requestId: context.requestId,
    });
  }
  switch (record.state) {
    case 'completed':
      return isExhausted(record) ? exhaustedAnswer(context) : replayAnswer(record, context);
    case 'failed':
      return failedAnswer(parseStoredFailure(record.error), context);
    case 'processing':
      return record.leaseExpiresAt > now
        ? inProgressAnswer(context, options)
        : failedAnswer({ status: 503 }, context, 'The worker stopped before answering; resend the request to take it over.');
  }
}
