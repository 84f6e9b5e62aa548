/** What every answer-once error knows about the intent it ended. */
export interface IntentErrorContext {
  /** The intent's ID: send again with `{ requestId }` to continue the same intent. */
  readonly requestId: string;
  /** Requests made to the send route for this intent. */
  readonly attempts: number;
  /** Status polls made for this intent. */
  readonly polls: number;
}

/**
 * Marks every answer-once error, whichever copy of the package made it (the ESM and the
 * CJS build are two classes with one name): the `is…` guards check it, not `instanceof`.
 */
export const ERROR_BRAND: unique symbol = Symbol.for('answer-once.error') as never;

/**
 * Base class of every error `send()` and `resume()` reject with (errors thrown by your
 * own ky hooks pass through unchanged). `retryable` says whether sending the same
 * intent again — same `requestId` — may succeed; the server will not run it twice.
 */
export class AnswerOnceError extends Error {
  override name: string = 'AnswerOnceError';
  /** @internal The brand the `is…Error` guards check, so they hold across the ESM and CJS builds. */
  readonly [ERROR_BRAND] = true;
  declare readonly requestId: string;
  declare readonly attempts: number;
  declare readonly polls: number;
  /** True when sending this intent again (same `requestId`) may succeed. */
  declare readonly retryable: boolean;

  constructor(message: string, context: IntentErrorContext, retryable: boolean, options?: { cause?: unknown }) {
    super(`answer-once: ${message}`, options);
    this.requestId = context.requestId;
    this.attempts = context.attempts;
    this.polls = context.polls;
    this.retryable = retryable;
  }
}
