import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';

/**
 * The server's answer breaks the protocol in a way the client will not follow: a 202
 * (or 409) `Location` on another origin than the send's (polling it would hand that
 * origin whatever your ky hooks add), or an echoed `X-Request-Id` that is not this
 * intent's. Never retried: sending again gets the same answer. `response` is the answer
 * that broke it.
 */
export class ProtocolError extends AnswerOnceError {
  override name = 'ProtocolError' as const;
  declare readonly response: Response;

  constructor(message: string, context: IntentErrorContext, response: Response) {
    super(message, context, false);
    this.response = response;
  }
}
