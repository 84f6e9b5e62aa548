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

  async function handle(request: Request): Promise<Response> {
    try {
      const { pathname } = new URL(request.url);
      if (request.method === 'GET' && pathname.startsWith(statusPrefix)) {
        return await status(request, pathname.slice(statusPrefix.length));
      }
      return await protect(await parseIntent(request, resolved));
    } catch (error) {
      if (error instanceof IdempotencyError) return error.getResponse();
      throw error;
    }
  }

  async function status(request: Request, requestId: string): Promise<Response> {
    if (!isValidRequestId(requestId)) {
      throw new InvalidRequestIdError('answer-once: a request ID is 8–128 characters of A–Z, a–z, 0–9, "_" and "-".');
    }
    const scope = await resolveScope(request, resolved);
    if (scope instanceof Response) return scope;
    const key = encodeKey(scope, requestId, resolved.keyPrefix);
    const context = { onEvent, retryAfterSeconds, requestId };
    let record = await storeCall('get', key, () => store.get(key), context);
    const waitMs = appliedWaitMs(request, resolved);
    let waitedSeconds: number | undefined;
    if (record?.state === 'processing' && record.leaseExpiresAt > Date.now() && waitMs > 0) {
      record = await storeCall('wait', key, () => store.wait(key, waitMs, request.signal), context);
      waitedSeconds = waitMs / 1000;
    }
    if (record?.state === 'completed') emit(onEvent, { type: 'replayed', key });
    return statusAnswer(record, { requestId, waitedSeconds, statusRoute: true }, resolved, Date.now());
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
      if (record.state !== 'processing') return answerRecord(key, record, answer);
      emit(onEvent, { type: 'in-progress', key });
      if (intent.waitMs === 0 || round > 0) return inProgressAnswer(answer, resolved);
      waitedSeconds = intent.waitMs / 1000;
      const settled = await storeCall('wait', key, () => store.wait(key, intent.waitMs, intent.request.signal), context);
      if (settled?.state === 'completed') return answerRecord(key, settled, { ...answer, waitedSeconds });
      if (settled?.state === 'processing' && settled.leaseExpiresAt > Date.now()) {
        return inProgressAnswer({ ...answer, waitedSeconds }, resolved);
      }
      // Failed, gone, or its worker died: claim it again (a retry or a takeover).
    }
  }

  function answerRecord(key: string, record: IdempotencyRecord, answer: AnswerContext): Response {
    if (record.state === 'completed') emit(onEvent, { type: 'replayed', key });
    return statusAnswer(record, answer, resolved, Date.now());
  }

  async function run(
    intent: Intent,
    token: string,
    attempt: { readonly takeover: boolean; readonly retry: boolean },
    answer: AnswerContext,
  ): Promise<Response> {
    const { key, requestId, scope } = intent;
    const { verdict, write } = await runHeld<Response>(
      store,
      key,
      token,
      async (signal) => {
        // A fresh Request over the buffered body, not tied to the client's connection:
        // a client that disconnects does not cancel the work whose answer it will ask for again.
        const request = new Request(intent.request.url, {
          method: intent.request.method,
          headers: intent.request.headers,
          ...(intent.body.byteLength > 0 ? { body: intent.body } : {}),
        });
        let response: Response;
        try {
          response = await resolved.handler(request, { requestId, scope, key, signal, ...attempt });
          if (!(response instanceof Response)) throw new TypeError('answer-once: `handler` must return a Response.');
        } catch (error) {
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
  };
}
