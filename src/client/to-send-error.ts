/**
 * Turns what ky threw into the error `send()` rejects with: one of the
 * {@link AnswerOnceError} subclasses, or — for errors thrown by your own hooks — the
 * error unchanged.
 */
import { isHTTPError, isNetworkError, isTimeoutError } from './ky.js';
import { isRetryableStatus, rawProblemCode } from './classify.js';
import type { ProblemDetails } from '../core/problems.js';
import { AbortError } from './errors/abort-error.js';
import { AnswerOnceError, type IntentErrorContext } from './errors/answer-once-error.js';
import { ConnectionError } from './errors/connection-error.js';
import { DeadlineExceededError } from './errors/deadline-exceeded-error.js';
import { IntentExhaustedError } from './errors/intent-exhausted-error.js';
import { IntentFailedError } from './errors/intent-failed-error.js';
import { RequestIdReusedError } from './errors/request-id-reused-error.js';
import { ResponseError, type ErrorResponse } from './errors/response-error.js';
import type { ResolvedClientOptions } from './options.js';

function asProblem(data: unknown): ProblemDetails | undefined {
  return typeof data === 'object' && data !== null && typeof (data as { status?: unknown }).status === 'number'
    ? (data as ProblemDetails)
    : undefined;
}

export function toSendError(
  error: unknown,
  context: IntentErrorContext,
  options: Pick<ResolvedClientOptions, 'totalTimeout' | 'retry'>,
  signal: AbortSignal | undefined,
  elapsed: number,
): unknown {
  if (signal?.aborted) return new AbortError(context, signal.reason);
  if (error instanceof AnswerOnceError) return error;
  if (isHTTPError(error)) {
    const { response, data } = error;
    const answer: ErrorResponse = { response, data, problem: asProblem(data) };
    const code = rawProblemCode(data);
    if (response.status === 422 && code === 'request-id-reused') return new RequestIdReusedError(answer, context, error);
    if (code === 'intent-failed') return new IntentFailedError(answer, context, error);
    if (code === 'intent-exhausted') return new IntentExhaustedError(answer, context, error);
    return new ResponseError(answer, context, isRetryableStatus(response.status, code, options.retry.statusCodes), error);
  }
  if (isTimeoutError(error) && elapsed >= options.totalTimeout) {
    return new DeadlineExceededError(options.totalTimeout, context, error);
  }
  if (isNetworkError(error) || isTimeoutError(error)) return new ConnectionError(context, error);
  if (error === undefined) return new AnswerOnceError('a ky hook stopped the send before an answer.', context, true);
  return error;
}
