import { isRetryableCode } from '../../core/problems.js';
import type { IntentErrorContext } from './answer-once-error.js';
import { type ErrorResponse, ResponseError } from './response-error.js';

/** The message: what the caller does next. */
const MESSAGE = 'the server could not produce an answer; sending it again runs it once more.';

/**
 * The server ran this intent and its work failed (problem code `intent-failed`), on
 * every resend the retry limit allowed. Retryable: sending the same intent again (same
 * `requestId`) runs the work once more.
 */
export class IntentFailedError extends ResponseError {
  override name = 'IntentFailedError' as const;

  constructor(answer: ErrorResponse, context: IntentErrorContext, cause?: unknown) {
    super(answer, context, isRetryableCode('intent-failed'), cause, MESSAGE);
  }
}
