import { PREFER_HEADER, RETRY_AFTER_HEADER } from '../core/headers.js';
import { isValidRequestId } from '../core/request-id.js';
import { parsePreferWait } from '../core/prefer.js';
import { type AnswerContext, failedAnswer, inProgressAnswer, statusAnswer, withProtocolHeaders } from './answers.js';
import { readBodyLimited } from './body.js';
import { withCors } from './cors.js';
import { IdempotencyError, InvalidRequestIdError, RequestIdReusedError } from './errors.js';
import { emit } from './events.js';
import { fingerprintRequest } from './fingerprint.js';
import {
  type IdempotencyHandlerOptions,
  normalizeHandlerOptions,
  type ResolvedHandlerOptions,
} from './handler-options.js';
import { runHeld, type Verdict } from './held-run.js';
import { assertScope, encodeKey, type Scope } from './key.js';
import { readRequestId } from './request-id.js';
import { storeCall } from './store-call.js';
import type { IdempotencyRecord } from './store.js';
import { captureResponse, type StoredFailure } from './stored-response.js';
import { attachToLog, replayFromPosition } from './log-answer.js';
import { readPosition, type RequestedPosition } from './position.js';
import { stopAnswer } from './stop-route.js';
import { isStreamStore } from './stream-store.js';
import { StreamedRun } from './stream-run.js';

/** Statuses that are transient by definition: not an answer, the intent may run again. */
const TRANSIENT_STATUSES = new Set([408, 425, 429]);

interface Intent {
  readonly request: Request;
  readonly requestId: string;
  readonly scope: Scope;
  readonly key: string;
  readonly body: Uint8Array<ArrayBuffer>;
  readonly fingerprint: string;
  /** The applied `Prefer: wait` in milliseconds (already capped), or 0. */
  readonly waitMs: number;
  /** The position of the answer the request already has (PROTOCOL.md § 14.5). */
  readonly position: RequestedPosition | undefined;
}

/**
 * Makes `handler` idempotent per intent: `async function handle(request): Promise<Response>`
 * for any Fetch-API runtime. See PROTOCOL.md for every answer it gives.
 *
 * The handler's response is read to its end before it is stored, so a streamed AI answer
 * reaches its first caller only once complete — the price of replaying it byte for byte.
 * An error the handler throws is answered as `intent-failed` without its message; it
 * reaches `onEvent` as a `failed` event (log it there).
 */
export function createIdempotencyHandler(options: IdempotencyHandlerOptions): (request: Request) => Promise<Response> {
  const resolved = normalizeHandlerOptions(options);
  const { store, statusPath, onEvent, retryAfterSeconds } = resolved;
  const statusPrefix = `${statusPath}/`;
  // A store that keeps answer logs streams every answer through (PROTOCOL.md § 14).
  const streams = isStreamStore(store) ? store : undefined;

  async function handle(request: Request): Promise<Response> {
    try {
      const { pathname } = new URL(request.url);
      if (request.method === 'GET' && pathname.startsWith(statusPrefix)) {
        return await status(request, pathname.slice(statusPrefix.length));
      }
      if (request.method === 'DELETE' && pathname.startsWith(statusPrefix)) {
        const requestId = pathname.slice(statusPrefix.length);
        const scope = await scopeOf(request, requestId);
        if (scope instanceof Response) return scope;
        const key = encodeKey(scope, requestId, resolved.keyPrefix);
        return await stopAnswer(streams, key, request, { requestId, waitMs: appliedWaitMs(request, resolved) }, resolved);
      }
      return await protect(await parseIntent(request, resolved));
    } catch (error) {
      if (error instanceof IdempotencyError) return error.getResponse();
      throw error;
    }
  }

  async function scopeOf(request: Request, requestId: string): Promise<Scope | Response> {
    if (!isValidRequestId(requestId)) {
      throw new InvalidRequestIdError('answer-once: a request ID is 8–128 characters of A–Z, a–z, 0–9, "_" and "-".');
    }
    return resolveScope(request, resolved);
  }

  async function status(request: Request, requestId: string): Promise<Response> {
    const scope = await scopeOf(request, requestId);
    if (scope instanceof Response) return scope;
    const key = encodeKey(scope, requestId, resolved.keyPrefix);
    const context = { onEvent, retryAfterSeconds, requestId };
    const waitMs = appliedWaitMs(request, resolved);
    const position = readPosition(request.headers);
    const answer: AnswerContext = { requestId, waitedSeconds: undefined, statusRoute: true };
    let record: IdempotencyRecord | null;
    if (streams) {
      const live = await attachLive(key, position, 0, request.signal, answer);
      if (live instanceof Response) return live;
      record = live;
    } else {
      record = await storeCall('get', key, () => store.get(key), context);
    }
    let waited = answer;
    if (record?.state === 'processing' && record.leaseExpiresAt > Date.now() && waitMs > 0) {
      waited = { ...answer, waitedSeconds: waitMs / 1000 };
      if (streams) {
        const live = await attachLive(key, position, waitMs, request.signal, waited);
        if (live instanceof Response) return live;
        record = live;
      } else {
        record = await storeCall('wait', key, () => store.wait(key, waitMs, request.signal), context);
      }
    }
    return answerRecord(key, record, waited, position);
  }

  /**
   * Attaches to the live answer of `key` if its head is logged (PROTOCOL.md § 14.6),
   * waiting up to `waitMs` for it; else the record as the read found it.
   */
  async function attachLive(
    key: string,
    position: RequestedPosition | undefined,
    waitMs: number,
    signal: AbortSignal,
    answer: AnswerContext,
  ): Promise<Response | IdempotencyRecord | null> {
    if (!streams) return null;
    const context = { onEvent, retryAfterSeconds, requestId: answer.requestId };
    const snapshot = await storeCall('read', key, () => streams.read(key, null, { waitMs, signal }), context);
    const attached = attachToLog(streams, key, snapshot, position, answer);
    if (!attached) return snapshot.record;
    emit(onEvent, { type: 'attached', key });
    return attached;
  }

  async function protect(intent: Intent | Response): Promise<Response> {
    if (intent instanceof Response) return intent;
    const { key, requestId, fingerprint } = intent;
    const context = { onEvent, retryAfterSeconds, requestId };
    let waitedSeconds: number | undefined;
    // At most two claims: the first, and one after a wait that ended in a dead or failed
    // holder; the second round answers whatever it finds.
    for (let round = 0; ; round += 1) {
      const claim = await storeCall('acquire', key, () => store.acquire(key, fingerprint, resolved.leaseMs), context);
      const answer: AnswerContext = { requestId, waitedSeconds, statusRoute: false };
      if (claim.acquired) {
        emit(onEvent, { type: 'acquired', key, takeover: claim.takeover, retry: claim.retry });
        return run(intent, claim.token, claim, answer);
      }
      const { record } = claim;
      if (record.fingerprint !== fingerprint) {
        throw new RequestIdReusedError(
          'answer-once: this request ID was already used with another method, path or body.',
          { requestId },
        );
      }
      if (record.state !== 'processing') return answerRecord(key, record, answer, intent.position);
      emit(onEvent, { type: 'in-progress', key });
      if (streams) {
        const waitMs = round === 0 ? intent.waitMs : 0;
        if (waitMs > 0) waitedSeconds = waitMs / 1000;
        const held = { ...answer, waitedSeconds };
        const live = await attachLive(key, intent.position, waitMs, intent.request.signal, held);
        if (live instanceof Response) return live;
        if (live?.state === 'completed') return answerRecord(key, live, held, intent.position);
        if ((live?.state === 'processing' && live.leaseExpiresAt > Date.now()) || round > 0) {
          return inProgressAnswer(held, resolved);
        }
        continue; // failed, gone, or its worker died: claim it again (a retry or a takeover)
      }
      if (intent.waitMs === 0 || round > 0) return inProgressAnswer(answer, resolved);
      waitedSeconds = intent.waitMs / 1000;
      const settled = await storeCall('wait', key, () => store.wait(key, intent.waitMs, intent.request.signal), context);
      if (settled?.state === 'completed') return answerRecord(key, settled, { ...answer, waitedSeconds }, intent.position);
      if (settled?.state === 'processing' && settled.leaseExpiresAt > Date.now()) {
        return inProgressAnswer({ ...answer, waitedSeconds }, resolved);
      }
      // Failed, gone, or its worker died: claim it again (a retry or a takeover).
    }
  }

  function answerRecord(
    key: string,
    record: IdempotencyRecord | null,
    answer: AnswerContext,
    position: RequestedPosition | undefined,
  ): Response {
    if (record?.state === 'completed') {
      emit(onEvent, { type: 'replayed', key });
      const replay = replayFromPosition(record, position, answer);
      if (replay) return replay;
    }
    return statusAnswer(record, answer, resolved, Date.now());
  }

  async function run(
    intent: Intent,
    token: string,
    attempt: { readonly takeover: boolean; readonly retry: boolean; readonly generation?: number | undefined },
    answer: AnswerContext,
  ): Promise<Response> {
    const { key, requestId, scope } = intent;
    const { generation } = attempt;
    const streamed =
      streams && generation !== undefined
        ? new StreamedRun(streams, key, token, generation, isRestart(intent.position, generation), resolved)
        : undefined;
    const running = runHeld<Response>(
      store,
      key,
      token,
      async (lease) => {
        const signal = streamed ? streamed.signal(lease) : lease;
        // A fresh Request over the buffered body, not tied to the client's connection:
        // a client that disconnects does not cancel the work whose answer it will ask for again.
        const request = new Request(intent.request.url, {
          method: intent.request.method,
          headers: intent.request.headers,
          ...(intent.body.byteLength > 0 ? { body: intent.body } : {}),
        });
        let response: Response;
        try {
          response = await resolved.handler(request, {
            requestId,
            scope,
            key,
            signal,
            takeover: attempt.takeover,
            retry: attempt.retry,
          });
          if (!(response instanceof Response)) throw new TypeError('answer-once: `handler` must return a Response.');
        } catch (error) {
          if (streamed?.stopped) return streamed.stoppedVerdict(requestId);
          return failVerdict({ status: 500 }, answer, error);
        }
        if (response.status >= 500 || TRANSIENT_STATUSES.has(response.status)) {
          const retryAfter = response.headers.get(RETRY_AFTER_HEADER);
          const failure: StoredFailure = { status: response.status, ...(retryAfter === null ? {} : { retryAfter }) };
          if (response.status >= 500) {
            await discardBody(response);
            return failVerdict(failure, answer, failure);
          }
          try {
            const passedOn = new Response(response.body, response);
            return { kind: 'fail', error: JSON.stringify(failure), value: passedOn, cause: failure };
          } catch (error) {
            return failVerdict(failure, answer, error); // a body already read or locked
          }
        }
        // A work that answers after losing its lease is not streamed: the successor's answer is (§ 7.2).
        if (streamed && !lease.aborted) return streamed.verdict(response, (error) => failVerdict({ status: 502 }, answer, error));
        try {
          const { stored, delivered } = await captureResponse(response, resolved.maxResponseBytes, resolved.replayHeaders);
          return { kind: 'complete', result: JSON.stringify(stored), value: delivered };
        } catch (error) {
          // The answer's stream broke (the model connection dropped): not an answer.
          return failVerdict({ status: 502 }, answer, error);
        }
      },
      resolved,
    );
    if (streamed) {
      const settled = running.then(
        ({ verdict, write }) => streamed.settle(verdict, write === 'fenced'),
        () => streamed.settle(undefined, false),
      );
      const first = await Promise.race([streamed.delivered, running.then(() => undefined)]);
      if (first) return withProtocolHeaders(first, answer);
      await settled;
    }
    const { verdict, write } = await running;
    if (write === 'fenced') {
      // A successor holds the intent: answer what a resend would get, never our own result.
      await discardBody(verdict.value);
      const record = await storeCall('get', key, () => store.get(key), { onEvent, retryAfterSeconds, requestId });
      return record === null ? failedAnswer({ status: 503 }, answer) : statusAnswer(record, answer, resolved, Date.now());
    }
    // After a long-poll whose holder failed or died, this run answers the held request (§ 6.2).
    return withProtocolHeaders(verdict.value, answer);
  }

  return resolved.cors ? withCors(handle, resolved.cors) : handle;
}

/**
 * Drops a body nobody will read. Cancelling a stream that already errored (the model's
 * connection broke) rejects with that error; it must not escape and leave the intent
 * PROCESSING with no answer until its lease lapses.
 */
async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

function failVerdict(failure: StoredFailure, answer: AnswerContext, cause: unknown): Verdict<Response> {
  return { kind: 'fail', error: JSON.stringify(failure), value: failedAnswer(failure, answer), cause };
}

async function resolveScope(request: Request, options: ResolvedHandlerOptions): Promise<Scope | Response> {
  const scope = await options.scope(request);
  if (scope instanceof Response) return scope;
  assertScope(scope);
  return scope;
}

function appliedWaitMs(request: Request, options: ResolvedHandlerOptions): number {
  const seconds = parsePreferWait(request.headers.get(PREFER_HEADER));
  return seconds === undefined ? 0 : Math.min(seconds * 1000, options.maxWaitMs);
}

async function parseIntent(request: Request, options: ResolvedHandlerOptions): Promise<Intent | Response> {
  const requestId = readRequestId(request.headers);
  const scope = await resolveScope(request, options);
  if (scope instanceof Response) return scope;
  const body = await readBodyLimited(request, options.maxBodyBytes, requestId);
  const { pathname, search } = new URL(request.url);
  return {
    request,
    requestId,
    scope,
    key: encodeKey(scope, requestId, options.keyPrefix),
    body,
    fingerprint: await fingerprintRequest(request.method, pathname + search, body),
    waitMs: appliedWaitMs(request, options),
    position: readPosition(request.headers),
  };
}

/** Whether a request's position names another generation than the one now running (§ 14.5). */
function isRestart(position: RequestedPosition | undefined, generation: number): boolean {
  return position?.generation !== undefined && position.generation !== generation;
}
