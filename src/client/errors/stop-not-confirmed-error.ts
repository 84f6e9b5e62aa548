import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';
import type { ErrorResponse } from './response-error.js';

/** The likely cause of a stop route's answer that is no stop, by its problem code or status. */
const CAUSES: Record<string, string> = {
  405: 'the route does not answer DELETE',
  404: 'no status route at that URL',
  'intent-not-found': 'the server does not know the intent (a store per instance?)',
  'stop-unsupported': 'the store keeps no answer logs',
  401: 'it needs the chat route’s credentials',
  403: 'it needs the chat route’s credentials',
};

function causeOf(answer: ErrorResponse | undefined): string {
  if (!answer) return 'no answer came back';
  const { status } = answer.response;
  const cause = CAUSES[answer.problem?.code ?? ''] ?? CAUSES[status];
  return `the stop route answered ${status}${cause ? `: ${cause}` : ''}`;
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
 * is then the `ConnectionError`); the message names the likely cause. `retryable`:
 * stopping again may succeed (no answer, or a 408/429/5xx past the retries).
 */
export class StopNotConfirmedError extends AnswerOnceError {
  override name = 'StopNotConfirmedError' as const;
  /** The stop route's status; `undefined` when no answer came back. */
  declare readonly status: number | undefined;
  declare readonly response: Response | undefined;
  /** The answer's parsed body (JSON when it said so, else text), if any. */
  declare readonly data: unknown;
  declare readonly problem: ErrorResponse['problem'];

  constructor(answer: ErrorResponse | undefined, context: IntentErrorContext, retryable: boolean, cause?: unknown) {
    super(`stop not confirmed, ${causeOf(answer)}; the answer may still be generating.`, context, retryable, { cause });
    this.status = answer?.response.status;
    this.response = answer?.response;
    this.data = answer?.data;
    this.problem = answer?.problem;
  }
}
