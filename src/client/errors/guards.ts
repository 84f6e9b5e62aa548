/**
 * Type guards for the client's errors (ky's `isHTTPError` pattern). They check the
 * brand every answer-once error carries and its `name`, not `instanceof`, so they hold
 * when the error came from the other build of the package (ESM vs CJS) or another copy.
 */
import { PROBLEMS, type Problem } from '../../core/problems.js';
import type { AbortError } from './abort-error.js';
import { type AnswerOnceError, ERROR_BRAND } from './answer-once-error.js';
import type { AnswerRestartedError } from './answer-restarted-error.js';
import type { ConnectionError } from './connection-error.js';
import type { DeadlineExceededError } from './deadline-exceeded-error.js';
import type { IntentExhaustedError } from './intent-exhausted-error.js';
import type { IntentFailedError } from './intent-failed-error.js';
import type { ProtocolError } from './protocol-error.js';
import type { RequestIdReusedError } from './request-id-reused-error.js';
import type { ResponseError } from './response-error.js';
import type { StopNotConfirmedError } from './stop-not-confirmed-error.js';
import type { StoredIntentError } from './stored-intent-error.js';
import type { UnreplayableBodyError } from './unreplayable-body-error.js';

/** True for every error `send()`, `resume()` and `stop()` reject with (not your own hooks' errors). */
export function isAnswerOnceError(error: unknown): error is AnswerOnceError {
  return typeof error === 'object' && error !== null && (error as { [ERROR_BRAND]?: unknown })[ERROR_BRAND] === true;
}

const named =
  <T extends AnswerOnceError>(name: string) =>
  (error: unknown): error is T =>
    isAnswerOnceError(error) && error.name === name;

/** The caller's signal fired. */
export const isAbortError = /* @__PURE__ */ named<AbortError>('AbortError');
/** No whole response came back (offline, reset, timeout, a cut body). */
export const isConnectionError = /* @__PURE__ */ named<ConnectionError>('ConnectionError');
/** `totalTimeout` passed, or a streamed body's `idleTimeout` (see `option`). */
export const isDeadlineExceededError = /* @__PURE__ */ named<DeadlineExceededError>('DeadlineExceededError');
/** The server answered an error status; also true for its subclasses (every class a problem code becomes). */
export function isResponseError(error: unknown): error is ResponseError {
  return (
    isAnswerOnceError(error) &&
    (error.name === 'ResponseError' || Object.values<Problem>(PROBLEMS).some((problem) => problem.error === error.name))
  );
}
/** The server ran the intent and its work failed on every resend. */
export const isIntentFailedError = /* @__PURE__ */ named<IntentFailedError>('IntentFailedError');
/** 409 `intent-exhausted`: the server will not run this intent again; a new attempt is a new intent. */
export const isIntentExhaustedError = /* @__PURE__ */ named<IntentExhaustedError>('IntentExhaustedError');
/** 422: the ID was used for another request. */
export const isRequestIdReusedError = /* @__PURE__ */ named<RequestIdReusedError>('RequestIdReusedError');
/** A body `storage` cannot keep; nothing was sent. */
export const isUnreplayableBodyError = /* @__PURE__ */ named<UnreplayableBodyError>('UnreplayableBodyError');
/** The server broke the protocol (a cross-origin `Location`, another intent's ID). */
export const isProtocolError = /* @__PURE__ */ named<ProtocolError>('ProtocolError');
/** A streamed body that started again on the server in a way it cannot follow (not an event stream, or past `retry.limit` restarts). */
export const isAnswerRestartedError = /* @__PURE__ */ named<AnswerRestartedError>('AnswerRestartedError');
/** A stored intent the client refused to send again (and removed from storage). */
export const isStoredIntentError = /* @__PURE__ */ named<StoredIntentError>('StoredIntentError');
/** A stop the server did not confirm (a route without `DELETE`, no answer…): the answer may still be generating. */
export const isStopNotConfirmedError = /* @__PURE__ */ named<StopNotConfirmedError>('StopNotConfirmedError');
