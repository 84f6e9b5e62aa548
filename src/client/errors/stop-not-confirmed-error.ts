import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';
import type { ErrorResponse } from './response-error.js';

/** Why a stop route's answer is not a confirmation, by what it said (PROTOCOL.md § 14.8). */
function causeOf(answer: ErrorResponse | undefined): string {
  if (!answer) return 'the stop did not reach the server (no answer came back)';
  const { status } = answer.response;
  const code = answer.problem?.code;
  if (status === 405)
    return 'the stop route answered 405: it does not answer DELETE (export DELETE beside GET on the status route)';
  if (status === 404 && code === 'intent-not-found') {
    return 'the server that answered the stop does not know the intent: the instance running it keeps it elsewhere (a store per instance, such as MemoryStore on serverless) or in another scope';
  }
  if (status === 404)
    return 'the stop route answered 404: no status route answers at that URL (statusPath, or the route file)';
  if (status === 501 && code === 'stop-unsupported')
    return 'the server’s store keeps no answer logs, so it cannot stop a running intent';
  if (status === 401 || status === 403) {
    return `the stop route refused the stop (${status}): it needs the credentials the chat route gets`;
  }
  const why = answer.problem?.detail ?? answer.problem?.title ?? answer.response.statusText;
  return `the stop route answered ${status}${why ? ` (${why})` : ''}, which is not a stop (PROTOCOL.md § 14.8)`;
}

/**
 * A stop the server did not confirm: the generation may still be running — the model
 * still writing, and billed, to the end — though the reader stopped reading. Confirmed
 * is what PROTOCOL.md § 14.8 answers: 202 `stopping`, or the status route's answer for an
 * intent that already ended (its replay, `intent-failed`, `intent-stopped`,
 * `intent-exhausted`); `client.stop()` also takes 404 `intent-not-found` (the server has
 * no such intent), which a stop of an answer being read is not.
 *
 * `status` is what the stop route answered (405 from a route that does not answer
 * `DELETE`, 404, 501 `stop-unsupported`, 401…), `undefined` when no answer came (`cause`
 * is then the {@link ConnectionError}); the message names the likely cause. `retryable`:
 * stopping again may succeed (no answer, or a 408/429/5xx past the retries).
 */
export class StopNotConfirmedError extends AnswerOnceError {
  override name = 'StopNotConfirmedError' as const;
  /** The stop route's status; `undefined` when no answer came back. */
  readonly status: number | undefined;
  readonly response: Response | undefined;
  /** The answer's parsed body (JSON when it said so, else text), if any. */
  readonly data: unknown;
  readonly problem: ErrorResponse['problem'];

  constructor(answer: ErrorResponse | undefined, context: IntentErrorContext, retryable: boolean, cause?: unknown) {
    super(`${causeOf(answer)}; the answer may still be generating on the server.`, context, retryable, { cause });
    this.status = answer?.response.status;
    this.response = answer?.response;
    this.data = answer?.data;
    this.problem = answer?.problem;
  }
}
