import { isEventStream } from '../../../core/stream-protocol.js';
import { encodeHead, headOf } from '../../format/answer-head.js';
import type { LogSlice } from '../../store/stream-store.js';
import { LoggedAnswer } from '../logged-answer.js';
import { AnswerBytes } from './answer-bytes.js';
import { AnswerLog, type AnswerLogContext } from './answer-log.js';
import { answerStreams, type StreamingContext } from './answer-streams.js';
import { answerWhole } from './answer-whole.js';
import { delivered } from './delivered.js';
import { type EarlyLimits, readEarly } from './early-reads.js';
import type { Production } from './production.js';

export type { CallerPosition } from './delivered.js';
export type { Production } from './production.js';

/**
 * What each phase needs: the log side's store, claim and limits (`AnswerLog` handles a
 * lost record or log; a fenced append also stops this producer's reading), the streaming
 * phase's position and stop, and the first phase's limits.
 */
export interface ProduceContext extends AnswerLogContext, StreamingContext, EarlyLimits {
  /** A successor holds the intent (an append was fenced): the run stops its work. */
  readonly onFenced: () => void;
  readonly replayHeaders: ReadonlySet<string>;
  /**
   * The log an earlier generation left (a re-run's): when the work's head is its head and
   * its body reproduces every logged byte, the answer continues it (§ 14.12).
   */
  readonly logged?: LogSlice | undefined;
}

/**
 * Streams the work's response through (PROTOCOL.md § 14.2), in phases (ARCHITECTURE.md,
 * "The producing side"): the attempt that runs the work gets every byte as it is produced
 * (SSE re-framed with positions, § 14.4) while the bytes go to the log in batches and are
 * kept whole, up to `maxResponseBytes`, for the record. One path for every answer: a body
 * that is all there at once (a JSON answer) is the case where the stream ends within a
 * few reads and before the first batch is due — nothing is appended and the attempt gets
 * it as a plain body. The attempt's connection closing stops nothing.
 */
export async function produce(response: Response, context: ProduceContext): Promise<Production> {
  const startedAt = Date.now();
  const { generation: own, position } = context;
  const sse = isEventStream(response.headers.get('content-type'));
  const head = headOf(response, context.replayHeaders);
  const loggedHead = encodeHead(head);
  const reader = response.body?.getReader();
  const log = new AnswerLog(context, loggedHead, sse, () => {
    void reader?.cancel(new Error('answer-once: another worker took this intent over.')).catch(() => undefined);
    context.onFenced();
  });
  const bytes = new AnswerBytes(own, sse, LoggedAnswer.of(context.logged, own, loggedHead), log);

  const early = await readEarly(reader, bytes, context);
  if (early.kind === 'broken') {
    const answer = { generation: bytes.generation, own, position };
    return { whole: true, produced: { ok: false, error: early.error }, delivered: delivered(response, null, answer) };
  }
  if (early.kind === 'whole' || !reader) {
    return answerWhole(response, head, bytes, { own, position, stopped: context.stopSignal.aborted });
  }
  return answerStreams(response, head, reader, early.pending, bytes, context, startedAt);
}
