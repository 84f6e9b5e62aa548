import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';

/**
 * The caller's `AbortSignal` fired: retries and polls stopped at once. `cause` is the
 * signal's reason. The server may have the request already; sending again with the
 * same `requestId` will not run it twice.
 */
export class AbortError extends AnswerOnceError {
  override name = 'AbortError' as const;

  constructor(context: IntentErrorContext, reason: unknown) {
    super('the send was cancelled.', context, true, { cause: reason });
  }
}
