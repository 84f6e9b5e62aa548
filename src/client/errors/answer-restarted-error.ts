import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';

/**
 * A streamed answer started again on the server (PROTOCOL.md § 14.5: its producer died
 * and a successor runs the work as generation `generation`), in a way the body cannot
 * carry on from:
 * - an answer that is not an event stream restarted after part of the old one had
 *   already reached you: bytes cannot be taken back, so the body errors with this
 *   instead of splicing two answers together (an event stream gets the restart marker
 *   in-band instead; see `client.fetch`);
 * - any streamed answer restarted more often than `retry.limit` allows (`restarts` says
 *   how often): a crash-looping producer is not followed forever, each restart being
 *   another run of the work.
 *
 * Retryable: fetching again with the same `requestId` reads the current generation whole.
 */
export class AnswerRestartedError extends AnswerOnceError {
  override name = 'AnswerRestartedError' as const;
  /** The generation the answer restarted as. */
  declare readonly generation: number | undefined;
  /** Restarts the body saw, when it ended because they passed `retry.limit`. */
  declare readonly restarts: number | undefined;

  constructor(generation: number | undefined, context: IntentErrorContext, restarts?: number) {
    super(
      restarts === undefined
        ? 'the answer started again on the server after part of it had arrived; fetch again with the same requestId to read it whole.'
        : `the answer started again on the server ${restarts} times, more than retry.limit allows; fetch again with the same requestId to read it whole.`,
      context,
      true,
    );
    this.generation = generation;
    this.restarts = restarts;
  }
}
