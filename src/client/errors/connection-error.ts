import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';

/**
 * No answer came back on any attempt: offline, connection reset, per-attempt timeout, or
 * (`during: 'cut'`) the connection broke while the answer's body was arriving. The
 * server may still have the request, or already hold its answer: sending again with the
 * same `requestId` fetches it without running it twice. `cause` is the last attempt's
 * error (ky's `NetworkError` or `TimeoutError`, or the body read's `TypeError`).
 */
export class ConnectionError extends AnswerOnceError {
  override name = 'ConnectionError' as const;

  constructor(context: IntentErrorContext, cause: unknown, during: 'connect' | 'cut' = 'connect') {
    const what = during === 'cut' ? 'the connection broke while the answer was arriving' : 'could not reach the server';
    super(`${what} (${context.attempts} attempts); send again with the same requestId to get the answer.`, context, true, {
      cause,
    });
  }
}
