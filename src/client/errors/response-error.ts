import type { ProblemDetails } from '../../core/problems.js';
import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';

/** The server's answer, as the error classes that come from a response keep it. */
export interface ErrorResponse {
  readonly response: Response;
  /** The parsed body (JSON when the server said so, else text), if any. */
  readonly data: unknown;
  /** The body when it is problem+json (RFC 9457). */
  readonly problem: ProblemDetails | undefined;
}

/**
 * The server answered with an error status: one this client does not retry (400, 401,
 * 403, 404, other 4xx), or a retryable one (408, 425, 429, 5xx) on every attempt the
 * retry limit allowed — `retryable` tells the two apart. `RequestIdReusedError` and
 * `IntentFailedError` are the protocol's two answers with a meaning of their own.
 */
export class ResponseError extends AnswerOnceError {
  override name: string = 'ResponseError';
  declare readonly status: number;
  declare readonly response: Response;
  declare readonly data: unknown;
  declare readonly problem: ProblemDetails | undefined;

  constructor(answer: ErrorResponse, context: IntentErrorContext, retryable: boolean, cause?: unknown, message?: string) {
    const { status, statusText } = answer.response;
    const why = answer.problem?.detail ?? answer.problem?.title ?? statusText;
    super(message ?? `the server answered ${status}${why ? ` (${why})` : ''}.`, context, retryable, { cause });
    this.status = status;
    this.response = answer.response;
    this.data = answer.data;
    this.problem = answer.problem;
  }
}
