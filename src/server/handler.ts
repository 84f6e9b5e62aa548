import { PREFER_HEADER, RETRY_AFTER_HEADER } from '../core/headers.js';
import { isValidRequestId } from '../core/request-id.js';
import { parsePreferWait } from '../core/prefer.js';
import { type AnswerContext, failedAnswer, inProgressAnswer, statusAnswer, withProtocolHeaders } from './answers.js';
import { readBodyLimited } from './body.js';
import { withCors } from './cors.js';
import { FingerprintMismatchError, IdempotencyError, InvalidRequestIdError, ScopeError } from './errors.js';
import { type Reporter, reporter } from './events.js';
import { fingerprintRequest } from './fingerprint.js';
import { type IdempotencyHandlerOptions, normalizeHandlerOptions, type ResolvedHandlerOptions } from './handler-options.js';
import { runHeld, type WorkOutcome } from './held-run.js';
import { assertScope, encodeKey, type Scope } from './key.js';
import { problemResponse } from './problem.js';
import { readRequestId } from './request-id.js';
import { type StoreCallContext, storeCall } from './store-call.js';
import type { IdempotencyRecord } from './store.js';
import { captureResponse, type StoredFailure } from './stored-response.js';
import { attachToLog, replayFromPosition } from './log-answer.js';
import { readPosition, type RequestedPosition } from './position.js';
import { stopAnswer } from './stop-route.js';
import { isStreamStore } from './stream-store.js';
import { StreamedRun } from './stream-run.js';

/** Statuses that are transient by definition: not an answer, the intent may run again. */
const TRANSIENT_STATUSES = new Set([408, 425, 429]);

/** The methods the status route serves besides DELETE (the stop route): it never runs anything. */
const STATUS_METHODS = new Set(['GET', 'HEAD']);

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
  readonly report: Reporter;
  readonly context: StoreCallContext;
}

/**
 * Makes `handler` idempotent per intent: `async function handle(request): Promise<Response>`
 * for any Fetch-API runtime. See PROTOCOL.md for every answer it gives.
 *
 * Every request outside the status route is treated as an intent, whatever its method:
 * mount it on the routes (and methods) you mean to protect. The status route serves
 * `GET`, `HEAD` and `DELETE` (the stop route) only (405 otherwise).
 *
 * The handler's response is read to its end before it is stored, so a streamed AI answer
 * reaches its first caller only once complete — the price of replaying it byte for byte.
 * An error the handler throws is answered as `intent-failed` without its message; it
 * reaches `onEvent` as a `failed` event (log it there).
 */
export function createIdempotencyHandler(given: IdempotencyHandlerOptions): (request: Request) => Promise<Response> {
  const options = normalizeHandlerOptions(given);
  const { store, statusPath, onEvent, retryAfterSeconds } = options;
  const statusPrefix = `${statusPath}/`;
  const allow = options.cors ? 'GET, HEAD, DELETE, OPTIONS' : 'GET, HEAD, DELETE';
  // A store that keeps answer logs streams every answer through (PROTOCOL.md § 14).
  const streams = isStreamStore(store) ? store : undefined;

  async function handle(request: Request): Promise<Response> {
    try {
      const { pathname } = new URL(request.url);
      if (pathname.startsWith(statusPrefix)) {
        const requestId = pathname.slice(statusPrefix.length);
        if (STATUS_METHODS.has(request.method)) {
          const answer = await status(request, requestId);
          return request.method === 'HEAD' ? new Response(null, answer) : answer;
        }
        if (request.method !== 'DELETE') return methodNotAllowed(requestId);
        const scope = await scopeOf(request, requestId);
        if (scope instanceof Response) return scope;
        const key = encodeKey(scope, requestId, options.keyPrefix);
        const { report, context } = subjectOf(requestId, scope);
        return await stopAnswer(
          streams,
          key,
          request,
          { requestId, waitMs: appliedWaitMs(request, options) },
          { ...options, report, context },
        );
      }
      return await protect(await parseIntent(request));
    } catch (error) {
      if (error instanceof IdempotencyError) return error.getResponse();
      throw error;
    }
  }

  function methodNotAllowed(requestId: string): Response {
    return problemResponse('method-not-allowed', {
      status: 405,
      title: 'answer-once: the status route is read-only; send GET or HEAD (or DELETE to stop).',
      ...(isValidRequestId(requestId) ? { requestId } : {}),
      headers: { Allow: allow },
    });
  }

  async function scopeOf(request: Request, requestId: string): Promise<Scope | Response> {
    if (!isValidRequestId(requestId)) {
      throw new InvalidRequestIdError('answer-once: a request ID is 8–128 characters of A–Z, a–z, 0–9, "_" and "-".');
    }
    return resolveScope(request, requestId);
  }

  /** The scope, or the app's own answer; a throwing or invalid `scope` is a reported 500 (`ScopeError`). */
  async function resolveScope(request: Request, requestId: string): Promise<Scope | Response> {
    let scope: unknown;
    try {
      scope = await options.scope(request);
      if (scope instanceof Response) return scope;
      assertScope(scope);
      return scope;
    } catch (error) {
      reporter(onEvent, { requestId })({ type: 'scope-error', error });
      throw new ScopeError('answer-once: `scope` failed.', { cause: error, requestId });
    }
  }

  function subjectOf(requestId: string, scope: Scope): { report: Reporter; context: StoreCallContext } {
    const report = reporter(onEvent, options.eventsIncludeUser ? { requestId, user: scope.user } : { requestId });
    return { report, context: { report, timeoutMs: options.storeTimeoutMs, retryAfterSeconds, requestId } };
  }

  async function status(request: Request, requestId: string): Promise<Response> {
    const scope = await scopeOf(request, requestId);
    if (scope instanceof Response) return scope;
    const key = encodeKey(scope, requestId, options.keyPrefix);
    const { report, context } = subjectOf(requestId, scope);
    const waitMs = appliedWaitMs(request, options);
    const position = readPosition(request.headers);
    const answer: AnswerContext = { requestId, waitedSeconds: undefined, statusRoute: true };
    let record: IdempotencyRecord | null;
    if (streams) {
      const live = await attachLive(key, position, 0, request.signal, answer, report, context);
      if (live instanceof Response) return live;
      record = live;
    } else {
      record = await storeCall('get', key, () => store.get(key), context);
    }
    let waited = answer;
    if (record?.state === 'processing' && record.leaseExpiresAt > Date.now() && waitMs > 0) {
      waited = { ...answer, waitedSeconds: waitMs / 1000 };
      if (streams) {
        const live = await attachLive(key, position, waitMs, request.signal, waited, report, context);
        if (live instanceof Response) return live;
        record = live;
      } else {
        const waitContext = { ...context, timeoutMs: waitMs + options.storeTimeoutMs };
        record = await storeCall('wait', key, () => store.wait(key, waitMs, request.signal), waitContext);
      }
    }
    return answerRecord(report, key, record, waited, position);
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
    report: Reporter,
    context: StoreCallContext,
  ): Promise<Response | IdempotencyRecord | null> {
    if (!streams) return null;
    const readContext = { ...context, timeoutMs: waitMs + options.storeTimeoutMs };
    const snapshot = await storeCall('read', key, () => streams.read(key, null, { waitMs, signal }), readContext);
    const attached = attachToLog(streams, key, snapshot, position, answer);
    if (!attached) return snapshot.record;
    report({ type: 'attached', key });
    return attached;
  }

  async function protect(intent: Intent | Response): Promise<Response> {
    if (intent instanceof Response) return intent;
    const { key, requestId, fingerprint, report, context } = intent;
    let waitedSeconds: number | undefined;
    // At most two claims: the first, and one after a wait that ended in a dead or failed
    // holder; the second round answers whatever it finds.
    for (let round = 0; ; round += 1) {
      const claim = await storeCall('acquire', key, () => store.acquire(key, fingerprint, options.leaseMs), context);
      const answer: AnswerContext = { requestId, waitedSeconds, statusRoute: false };
      if (claim.acquired) {
        report({ type: 'acquired', key, takeover: claim.takeover, retry: claim.retry });
        return run(intent, claim.token, claim, answer);
      }
      const { record } = claim;
      if (record.fingerprint !== fingerprint) {
        throw new FingerprintMismatchError(
          'answer-once: this request ID was already used with another method, path or body.',
          { requestId },
        );
      }
      if (record.state !== 'processing') return answerRecord(report, key, record, answer, intent.position);
      report({ type: 'in-progress', key });
      if (streams) {
        const waitMs = round === 0 ? intent.waitMs : 0;
        if (waitMs > 0) waitedSeconds = waitMs / 1000;
        const held = { ...answer, waitedSeconds };
        const live = await attachLive(key, intent.position, waitMs, intent.request.signal, held, report, context);
        if (live instanceof Response) return live;
        if (live?.state === 'completed') return answerRecord(report, key, live, held, intent.position);
        if ((live?.state === 'processing' && live.leaseExpiresAt > Date.now()) || round > 0) {
          return inProgressAnswer(held, options);
        }
        continue; // failed, gone, or its worker died: claim it again (a retry or a takeover)
      }
      if (intent.waitMs === 0 || round > 0) return inProgressAnswer(answer, options);
      waitedSeconds = intent.waitMs / 1000;
      const waitContext = { ...context, timeoutMs: intent.waitMs + options.storeTimeoutMs };
      const settled = await storeCall('wait', key, () => store.wait(key, intent.waitMs, intent.request.signal), waitContext);
      if (settled?.state === 'completed')
        return answerRecord(report, key, settled, { ...answer, waitedSeconds }, intent.position);
      if (settled?.state === 'processing' && settled.leaseExpiresAt > Date.now()) {
        return inProgressAnswer({ ...answer, waitedSeconds }, options);
      }
      // Failed, gone, or its worker died: claim it again (a retry or a takeover).
    }
  }

  function answerRecord(
    report: Reporter,
    key: string,
    record: IdempotencyRecord | null,
    answer: AnswerContext,
    position: RequestedPosition | undefined,
  ): Response {
    if (record?.state === 'completed') {
      report({ type: 'replayed', key });
      const replay = replayFromPosition(record, position, answer);
      if (replay) return replay;
    }
    return statusAnswer(record, answer, options, Date.now());
  }

  async function run(
    intent: Intent,
    token: string,
    attempt: { readonly takeover: boolean; readonly retry: boolean; readonly generation?: number | undefined },
    answer: AnswerContext,
  ): Promise<Response> {
    const { key, requestId, scope, fingerprint, report, context } = intent;
    const { generation } = attempt;
    const streamed =
      streams && generation !== undefined
        ? new StreamedRun(streams, key, token, generation, isRestart(intent.position, generation), { ...options, report })
        : undefined;
    // Without a log, an answer over `maxResponseBytes` goes to its caller while it still
    // streams; its outcome is written only once its body ended (PROTOCOL.md § 7.3).
    let deliverEarly!: (response: Response) => void;
    let deliveredEarly = false;
    const early = new Promise<Response>((resolve) => {
      deliverEarly = (response) => {
        deliveredEarly = true;
        resolve(response);
      };
    });
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
          response = await options.handler(request, {
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
          return failOutcome({ status: 500 }, answer, error);
        }
        if (response.status >= 500 || TRANSIENT_STATUSES.has(response.status)) {
          const retryAfter = response.headers.get(RETRY_AFTER_HEADER);
          const failure: StoredFailure = { status: response.status, ...(retryAfter === null ? {} : { retryAfter }) };
          if (response.status >= 500) {
            await discardBody(response);
            return failOutcome(failure, answer, failure);
          }
          try {
            const passedOn = new Response(response.body, response);
            return { kind: 'fail', error: JSON.stringify(failure), value: passedOn, cause: failure };
          } catch (error) {
            return failOutcome(failure, answer, error); // a body already read or locked
          }
        }
        // A work that answers after losing its lease is not streamed: the successor's answer is (§ 7.2).
        if (streamed && !lease.aborted)
          return streamed.verdict(response, (error) => failOutcome({ status: 502 }, answer, error));
        try {
          const captured = await captureResponse(response, options.maxResponseBytes, options.replayHeaders);
          if (!captured.oversize)
            return { kind: 'complete', result: JSON.stringify(captured.stored), value: captured.delivered };
          deliverEarly(withProtocolHeaders(captured.delivered, answer));
          const end = await captured.ended;
          // A broken stream produced no answer, whatever its size: FAILED, a resend runs again.
          if (!end.ok) return failOutcome({ status: 502 }, answer, end.error);
          return { kind: 'complete', result: JSON.stringify(captured.stored), value: captured.delivered };
        } catch (error) {
          // The answer's stream broke (the model connection dropped): not an answer.
          return failOutcome({ status: 502 }, answer, error);
        }
      },
      (reason) => failOutcome({ status: 504 }, answer, reason),
      { ...options, fingerprint, report },
    );
    if (streamed) {
      const settled = running.then(
        ({ outcome, write }) => streamed.settle(outcome, write === 'fenced'),
        () => streamed.settle(undefined, false),
      );
      const first = await Promise.race([streamed.delivered, running.then(() => undefined)]);
      if (first) return withProtocolHeaders(first, answer);
      await settled;
    }
    const finished = running.then(async ({ outcome, write }) => {
      if (deliveredEarly) return outcome.value; // already on its way to the caller
      if (write !== 'fenced') {
        // After a long-poll whose holder failed or died, this run answers the held request (§ 6.2).
        return withProtocolHeaders(outcome.value, answer);
      }
      // A successor holds the intent: answer what a resend would get, never our own result.
      const record = await storeCall('get', key, () => store.get(key), context).catch(() => null);
      if (record === null) return withProtocolHeaders(outcome.value, answer); // and nobody holds it now: ours stands
      await discardBody(outcome.value);
      return statusAnswer(record, answer, options, Date.now());
    });
    return Promise.race([early, finished]);
  }

  async function parseIntent(request: Request): Promise<Intent | Response> {
    const requestId = readRequestId(request.headers);
    const scope = await resolveScope(request, requestId);
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
      ...subjectOf(requestId, scope),
    };
  }

  return options.cors ? withCors(handle, options.cors) : handle;
}

/**
 * Drops a body nobody will read. Cancelling a stream that already errored (the model's
 * connection broke) rejects with that error; it must not escape and leave the intent
 * PROCESSING with no answer until its lease lapses.
 */
async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

function failOutcome(failure: StoredFailure, answer: AnswerContext, cause: unknown): WorkOutcome<Response> {
  return { kind: 'fail', error: JSON.stringify(failure), value: failedAnswer(failure, answer), cause };
}

function appliedWaitMs(request: Request, options: ResolvedHandlerOptions): number {
  const seconds = parsePreferWait(request.headers.get(PREFER_HEADER));
  return seconds === undefined ? 0 : Math.min(seconds * 1000, options.maxWaitMs);
}

/** Whether a request's position names another generation than the one now running (§ 14.5). */
function isRestart(position: RequestedPosition | undefined, generation: number): boolean {
  return position?.generation !== undefined && position.generation !== generation;
}
