/**
 * The error a resumable body ends with on the server's error marker (PROTOCOL.md § 14.7),
 * by its code's row in the table (`src/core/problems.ts`): a code after which no resend
 * can help (`intent-exhausted`, § 5.7) ends the body at once with its own error; any
 * other — once the resends the retry limit allows are spent — is `IntentFailedError`,
 * with the marker's code and status as its answer.
 */
import { isRetryableNext, PROBLEMS, problemOf } from '../../core/problems.js';
import type { IntentErrorContext } from '../errors/answer-once-error.js';
import type { ResponseError } from '../errors/response-error.js';
import { asProblem } from '../send/classify.js';
import { problemError } from '../send/problem-error.js';

/** What an error marker's data said. */
export interface MarkerData {
  readonly code: string | undefined;
  readonly status: number | undefined;
}

/** The marker's row when it ends the intent for good: nothing may resend it. */
function finalRow(marker: MarkerData) {
  const row = problemOf(marker.code, marker.status);
  return row && !isRetryableNext(row.next) ? row : undefined;
}

/** Whether the marker ends the intent for good: nothing may resend it. */
export const isFinalMarker = (marker: MarkerData): boolean => finalRow(marker) !== undefined;

export function markerFailure(marker: MarkerData, context: IntentErrorContext): ResponseError {
  const status = marker.status ?? 502;
  const data = { code: marker.code ?? 'intent-failed', status };
  const response = new Response(JSON.stringify(data), { status, headers: { 'content-type': 'application/json' } });
  const row = finalRow(marker) ?? PROBLEMS['intent-failed'];
  // Its problem details: the marker's code, read as its title too.
  const problem = asProblem({ ...data, title: data.code });
  return problemError({ response, data, problem }, context, undefined, [], row);
}
