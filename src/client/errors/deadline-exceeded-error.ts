import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';

/**
 * A deadline passed. `option` says which:
 * - `totalTimeout`: no answer within it, counting every attempt, backoff and status poll;
 * - `idleTimeout`: a streamed body (`client.fetch`, `client.stream`) brought no new
 *   answer bytes for that long while its reader waited (keepalive comments and markers do
 *   not count), reconnects included.
 *
 * The server may still be generating: sending again with the same `requestId` picks
 * the answer up.
 */
export class DeadlineExceededError extends AnswerOnceError {
  override name = 'DeadlineExceededError' as const;
  /** The deadline that passed, in milliseconds (`totalTimeout` or `idleTimeout`, as `option` says). */
  declare readonly totalTimeout: number;
  /** The option whose deadline passed. */
  declare readonly option: 'totalTimeout' | 'idleTimeout';

  constructor(
    timeout: number,
    context: IntentErrorContext,
    cause?: unknown,
    option: 'totalTimeout' | 'idleTimeout' = 'totalTimeout',
  ) {
    const what =
      option === 'totalTimeout' ? `no answer within ${timeout} ms` : `no new answer bytes for ${timeout} ms (idleTimeout)`;
    super(`${what}; send again with the same requestId to pick it up.`, context, true, { cause });
    this.totalTimeout = timeout;
    this.option = option;
  }
}
