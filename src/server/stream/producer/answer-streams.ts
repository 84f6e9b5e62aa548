import type { AnswerHead } from '../../format/answer-head.js';
import { restartMarker } from '../../format/sse-frame.js';
import { stoppedBody } from '../../format/stop-cut.js';
import type { StreamStore } from '../../store/stream-store.js';
import type { AnswerBytes } from './answer-bytes.js';
import { CallerBody } from './caller-body.js';
import { type CallerPosition, delivered, restarts } from './delivered.js';
import { type AnswerEnd, answered, type Production } from './production.js';
import { type Read, settled } from './reads.js';

/** What the streaming phase needs of the producer's context. */
export interface StreamingContext {
  readonly store: StreamStore;
  readonly key: string;
  readonly token: string;
  readonly generation: number;
  readonly position: CallerPosition | undefined;
  readonly maxQueuedBytes: number;
  readonly leaseMs: number;
  readonly stopSignal: AbortSignal;
  stopAt(): Promise<number | undefined>;
}

/**
 * The phase for a body that streams: the log opens with what was read, the head and that
 * go out to the attempt now (from the position it named, a restart marker first when it
 * named another generation), and the rest follows as it comes (`readOn`).
 */
export function answerStreams(
  response: Response,
  head: AnswerHead,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  pending: Promise<Read>,
  bytes: AnswerBytes,
  context: StreamingContext,
  startedAt: number,
): Extract<Production, { whole: false }> {
  const { store, key, position, maxQueuedBytes, leaseMs } = context;
  const { generation, continued, log, caller } = bytes;
  const sse = bytes.framing.sse;
  const early = caller.takeEarly();
  const first = early.byteLength > 0 ? early : undefined;
  log.open(context.token, generation, continued, first, startedAt);
  // A caller that named a position of the continued answer gets it from there.
  const from = continued && position?.generation === generation ? position.offset : 0;
  const body = new CallerBody({ store, key, generation, offset: from, sse, maxQueuedBytes, leaseMs });
  if (restarts(position, generation) && sse) body.marker(restartMarker(generation));
  caller.attach(body, from, first);
  return {
    whole: false,
    delivered: delivered(response, body.stream, { generation, own: context.generation, position }),
    produced: readOn(head, reader, pending, bytes, context),
    settle({ ok, fenced }) {
      body.end(ok && !fenced ? { ok: true } : { ok: false, status: fenced ? 503 : 502 });
    },
    reopen: (token, reclaimed) => log.reopen(token, reclaimed),
  };
}

/** Reads the body on to its end (or its stop, or a successor's fence), each read into `bytes`. */
async function readOn(
  head: AnswerHead,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  pending: Promise<Read>,
  bytes: AnswerBytes,
  context: StreamingContext,
): Promise<AnswerEnd> {
  const { stopSignal } = context;
  const onStop = (): void => void reader.cancel(stopSignal.reason).catch(() => undefined);
  stopSignal.addEventListener('abort', onStop, { once: true });
  if (stopSignal.aborted) onStop();
  try {
    for (let next = await pending; ; next = await settled(reader.read())) {
      if (!next.ok && !stopSignal.aborted) {
        await bytes.log.drain(); // readers get every byte the caller got before the error marker
        return { ok: false, error: next.error };
      }
      if (!next.ok || next.next.done || bytes.log.fenced) break;
      bytes.write(next.next.value);
    }
    return await ending(head, bytes, context);
  } finally {
    stopSignal.removeEventListener('abort', onStop);
    bytes.log.cancel();
  }
}

/**
 * The body ended: the record gets the answer — when stopped, with the stop marker last
 * and cut where the stopping reader was, if the stop said so (§ 14.8) — once the log
 * took its last batch.
 */
async function ending(head: AnswerHead, bytes: AnswerBytes, context: StreamingContext): Promise<AnswerEnd> {
  const { log } = bytes;
  bytes.end();
  if (!context.stopSignal.aborted) return await log.finish(answered(head, log.record(), false));
  const produced = log.record(); // before the stop marker
  bytes.stop(); // the attempt's and the log's last unit
  const cut =
    log.keeps && produced ? stoppedBody(produced, await context.stopAt(), bytes.framing.sse, log.generation) : undefined;
  return await log.finish(answered(head, cut, true));
}
