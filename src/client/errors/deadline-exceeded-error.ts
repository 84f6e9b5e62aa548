import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';

/**
 * No answer within `totalTimeout`, counting every attempt, backoff and status poll.
 * The server may still be generating: sending again with the same `requestId` picks
 * the answer up.
 */
export class DeadlineExceededError extends AnswerOnceError {
  override name = 'DeadlineExceededError' as const;
  /** The deadline that passed, in milliseconds. */
  readonly totalTimeout: number;

  constructor(totalTimeout: number, context: IntentErrorContext, cause?: unknown) {
    super(`no answer within ${totalTimeout} ms; send again with the same requestId to pick it up.`, context, true, {
      cause,
    });
    this.totalTimeout = totalTimeout;
  }
}
