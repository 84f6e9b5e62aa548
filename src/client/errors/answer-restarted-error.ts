import { AnswerOnceError, type IntentErrorContext } from './answer-once-error.js';

/**
 * A streamed answer that is not an event stream started again (PROTOCOL.md § 14.5: its
 * producer died and a successor runs the work as generation `generation`) after part of
 * the old one had already reached you. Bytes cannot be taken back, so the body errors
 * with this instead of splicing two answers together. Retryable: fetching again with the
 * same `requestId` reads the new generation whole. (An event stream gets the restart
 * marker in-band instead; see `client.fetch`.)
 */
export class AnswerRestartedError extends AnswerOnceError {
  override name = 'AnswerRestartedError' as const;
  /** The generation the answer restarted as. */
  readonly generation: number | undefined;

  constructor(generation: number | undefined, context: IntentErrorContext) {
    super(
      'the answer started again on the server after part of it had arrived; fetch again with the same requestId to read it whole.',
      context,
      true,
    );
    this.generation = generation;
  }
}
