import type { ProblemDetails } from '../../core/problems.js';
import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';
import type { ErrorResponse } from './response-error.js';

/**
 * The server ran this intent and its work failed (problem code `intent-failed`), on
 * every resend the retry limit allowed. Retryable: sending the same intent again (same
 * `requestId`) runs the work once more.
 */
export class IntentFailedError extends AnswerOnceError {
  override name = 'IntentFailedError' as const;
  readonly status: number;
  readonly response: Response;
  readonly problem: ProblemDetails | undefined;

  constructor(answer: ErrorResponse, context: IntentErrorContext, cause?: unknown) {
    super(
      `the server could not produce an answer (${context.attempts} attempts); sending again with the same requestId runs it once more.`,
      context,
      true,
      { cause },
    );
    this.status = answer.response.status;
    this.response = answer.response;
    this.problem = answer.problem;
  }
}
