/**
 * The error a server's error answer becomes, by its problem code's row in the table
 * (`src/core/problems.ts`): the class the row names, retryable as the row's next step
 * says. `send()`, a resumable body's error marker and the AI transport all ask here.
 */
import { isRetryableNext, nextAfter, type Problem, type ProblemErrorName, problemOf } from '../../core/problems.js';
import type { IntentErrorContext } from '../errors/answer-once-error.js';
import { isResponseError } from '../errors/guards.js';
import { IntentExhaustedError } from '../errors/intent-exhausted-error.js';
import { IntentFailedError } from '../errors/intent-failed-error.js';
import { RequestIdReusedError } from '../errors/request-id-reused-error.js';
import { type ErrorResponse, ResponseError } from '../errors/response-error.js';
import { rawProblemCode } from './classify.js';

/**
 * Each class a row may name, under its own `name` (which `isResponseError` reads off the
 * table): a class added to `ProblemErrorName` fails to compile until it is here.
 */
const CLASSES = {
  IntentFailedError,
  IntentExhaustedError,
  RequestIdReusedError,
} satisfies {
  [N in ProblemErrorName]: new (
    answer: ErrorResponse,
    context: IntentErrorContext,
    cause?: unknown,
  ) => ResponseError & { name: N };
};

/**
 * The error `answer` becomes: its row's class, or — for a code without a row, or one
 * answered at another status — a `ResponseError` whose `retryable` the status decides
 * under `retryStatuses`. `row` overrides the answer's own (an error marker's).
 */
export function problemError(
  answer: ErrorResponse,
  context: IntentErrorContext,
  cause: unknown,
  retryStatuses: readonly number[],
  row: Problem | undefined = problemOf(rawProblemCode(answer.data), answer.response.status),
): ResponseError {
  if (row?.error) return new CLASSES[row.error](answer, context, cause);
  const next = nextAfter(answer.response.status, rawProblemCode(answer.data), retryStatuses);
  return new ResponseError(answer, context, isRetryableNext(next), cause);
}

/** Whether `error` ends its intent for good: a "try again" must be a new intent, with a new ID. */
export function endsIntent(error: unknown): boolean {
  return isResponseError(error) && problemOf(error.problem?.code, error.status)?.next === 'new-intent';
}
