/**
 * Turns what ky threw into the error `send()` rejects with: one of the
 * {@link AnswerOnceError} subclasses, or — for errors thrown by your own hooks — the
 * error unchanged.
 */

import { AbortError } from '../errors/abort-error.js';
import { AnswerOnceError, type IntentErrorContext } from '../errors/answer-once-error.js';
import { ConnectionError } from '../errors/connection-error.js';
import { DeadlineExceededError } from '../errors/deadline-exceeded-error.js';
import { isHTTPError, isNetworkError, isTimeoutError } from '../ky.js';
import type { ResolvedClientOptions } from '../options.js';
import { asProblem } from './classify.js';
import { problemError } from './problem-error.js';

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
    return problemError({ response, data, problem: asProblem(data) }, context, error, options.retry.statusCodes);
  }
  if (isTimeoutError(error) && elapsed >= options.totalTimeout) {
    return new DeadlineExceededError(options.totalTimeout, context, error);
  }
  if (isNetworkError(error) || isTimeoutError(error)) return new ConnectionError(context, error);
  if (error === undefined) return new AnswerOnceError('a ky hook stopped the send before an answer.', context, true);
  return error;
}
