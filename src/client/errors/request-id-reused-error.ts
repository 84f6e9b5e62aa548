import { isRetryableCode } from '../../core/problems.js';
import type { IntentErrorContext } from './answer-once-error.js';
import { type ErrorResponse, ResponseError } from './response-error.js';

/** The message: what the caller does next. */
const MESSAGE = 'this request ID was already used for a different request; send it with a new ID.';

/**
 * 422: this request ID was already used for a different request (another method, URL
 * or body). The server refuses to replay someone else's answer. A caller bug — usually
 * a `requestId` or `intentKey` reused for a new message — so it is never retried.
 */
export class RequestIdReusedError extends ResponseError {
  override name = 'RequestIdReusedError' as const;

  constructor(answer: ErrorResponse, context: IntentErrorContext, cause?: unknown) {
    super(answer, context, isRetryableCode('request-id-reused'), cause, MESSAGE);
  }
}
