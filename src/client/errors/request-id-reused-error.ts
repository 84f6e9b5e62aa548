import type { ProblemDetails } from '../../core/problems.js';
import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';
import type { ErrorResponse } from './response-error.js';

/**
 * 422: this request ID was already used for a different request (another method, URL
 * or body). The server refuses to replay someone else's answer. A caller bug — usually
 * a `requestId` or `intentKey` reused for a new message — so it is never retried.
 */
export class RequestIdReusedError extends AnswerOnceError {
  override name = 'RequestIdReusedError' as const;
  readonly status: number;
  readonly response: Response;
  readonly problem: ProblemDetails | undefined;

  constructor(answer: ErrorResponse, context: IntentErrorContext, cause?: unknown) {
    super(
      'this request ID was already used for a different request; send the new request with a new ID.',
      context,
      false,
      { cause },
    );
    this.status = answer.response.status;
    this.response = answer.response;
    this.problem = answer.problem;
  }
}
