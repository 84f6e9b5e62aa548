import { AnswerOnceError } from './answer-once-error.js';

/**
 * A record in `storage` that the client will never send (PROTOCOL.md § 13): it is not an
 * intent this client wrote, or it names another origin than the one the client sends to
 * (sending it would hand that origin the client's own headers). Nothing was sent, and the
 * record was removed from storage, so it fails once, not on every `resume()`.
 */
export class StoredIntentError extends AnswerOnceError {
  override name = 'StoredIntentError' as const;
  /** What is wrong with the record. */
  declare readonly reason: string;

  constructor(requestId: string, reason: string) {
    super(
      `the stored intent ${JSON.stringify(requestId.slice(0, 128))} was not sent and was removed: ${reason}.`,
      {
        requestId,
        attempts: 0,
        polls: 0,
      },
      false,
    );
    this.reason = reason;
  }
}
