import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';

/**
 * No response came back on any attempt (offline, connection reset, per-attempt
 * timeout). The server may still have the request: sending again with the same
 * `requestId` fetches its answer without running it twice. `cause` is ky's
 * `NetworkError` or `TimeoutError` of the last attempt.
 */
export class ConnectionError extends AnswerOnceError {
  override name = 'ConnectionError' as const;

  constructor(context: IntentErrorContext, cause: unknown) {
    super(
      `could not reach the server (${context.attempts} attempts); send again with the same requestId to get the answer.`,
      context,
      true,
      { cause },
    );
  }
}
