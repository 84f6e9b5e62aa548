/**
 * The error a resumable body ends with on the server's error marker (PROTOCOL.md § 14.7):
 * `IntentExhaustedError` at once for `intent-exhausted` (§ 5.7: final, never resent),
 * else — once the resends the retry limit allows are spent — `IntentFailedError`, with
 * the marker's code and status as its answer.
 */
import type { IntentErrorContext } from '../errors/answer-once-error.js';
import { IntentExhaustedError } from '../errors/intent-exhausted-error.js';
import { IntentFailedError } from '../errors/intent-failed-error.js';

/** What an error marker's data said. */
export interface MarkerData {
  readonly code: string | undefined;
  readonly status: number | undefined;
}

/** Whether the marker ends the intent for good: nothing may resend it. */
export const isFinalMarker = (marker: MarkerData) => marker.code === 'intent-exhausted';

export function markerFailure(marker: MarkerData, context: IntentErrorContext): IntentFailedError | IntentExhaustedError {
  const status = marker.status ?? 502;
  const data = { code: marker.code ?? 'intent-failed', status };
  const response = new Response(JSON.stringify(data), { status, headers: { 'content-type': 'application/json' } });
  const answer = { response, data, problem: { ...data, title: data.code } as never };
  return isFinalMarker(marker) ? new IntentExhaustedError(answer, context) : new IntentFailedError(answer, context);
}
