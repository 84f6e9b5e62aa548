import { isRetryableCode } from '../../core/problems.js';
import type { IntentErrorContext } from './answer-once-error.js';
import { type ErrorResponse, ResponseError } from './response-error.js';

/** The message: what the caller does next. */
const MESSAGE = 'the server ran this request as often as it allows and will not run it again; send it as a new request.';

/**
 * The server ran this intent's work as many times as it allows one intent (409, problem
 * code `intent-exhausted`, PROTOCOL.md § 9): it will not run again under this ID. Final:
 * never retried, and not `retryable` — a UI's "try again" sends a new intent (a new
 * `requestId`), which `SendController`/`useSend` and the AI SDK transport do by themselves.
 */
export class IntentExhaustedError extends ResponseError {
  override name = 'IntentExhaustedError' as const;

  constructor(answer: ErrorResponse, context: IntentErrorContext, cause?: unknown) {
    super(answer, context, isRetryableCode('intent-exhausted'), cause, MESSAGE);
  }
}
