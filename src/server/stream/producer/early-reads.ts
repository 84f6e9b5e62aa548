import type { AnswerBytes } from './answer-bytes.js';
import { type Read, ready, settled } from './reads.js';

/**
 * Reads that may be "already there" before the answer streams anyway: a JSON answer is
 * one or two chunks; a body of thousands of ready chunks must not hold the first byte
 * until its last one was read.
 */
const READY_READS = 16;

/**
 * How the first phase ended: the body is all there (`whole`), it broke before anything
 * went out (`broken`), or the answer streams from here, `pending` its next read.
 */
export type EarlyEnd =
  | { readonly kind: 'whole' }
  | { readonly kind: 'broken'; readonly error: unknown }
  | { readonly kind: 'streams'; readonly pending: Promise<Read> };

/** The limits of the first phase (the producer's context). */
export interface EarlyLimits {
  /** A batch of this many bytes is due: stream from here. */
  readonly flushBytes: number;
  /** The most bytes queued for the attempt's connection: a body larger than that streams. */
  readonly maxQueuedBytes: number;
  readonly stopSignal: AbortSignal;
}

/**
 * The first phase: what is there already, read into `bytes` without waiting on I/O — up
 * to `maxQueuedBytes`: a body larger than that streams, as one that waits does, so it is
 * never all held at once. While the body may still continue a logged answer, nothing goes
 * out and nothing is logged: it is read, waiting on I/O if need be, until a byte differs
 * or every logged byte came again (§ 14.12) — bounded by the logged length.
 */
export async function readEarly(
  reader: ReadableStreamDefaultReader<Uint8Array> | undefined,
  bytes: AnswerBytes,
  limits: EarlyLimits,
): Promise<EarlyEnd> {
  if (!reader) {
    bytes.ended();
    return { kind: 'whole' };
  }
  for (let reads = 0; ; reads += 1) {
    const comparing = bytes.comparing;
    const held = bytes.caller.early;
    // A batch is due already, or the reads ran long, or more is held than one caller may queue.
    if (!comparing && (reads >= READY_READS || held >= limits.flushBytes || held > limits.maxQueuedBytes)) {
      return { kind: 'streams', pending: settled(reader.read()) };
    }
    let next: Read;
    if (comparing) next = await settled(reader.read());
    else {
      const read = await ready(reader.read());
      if ('later' in read) return { kind: 'streams', pending: read.later }; // waits on I/O
      next = read.now;
    }
    if (next.ok && !next.next.done) {
      bytes.write(next.next.value);
      continue;
    }
    const continues = bytes.ended();
    if (!next.ok && !limits.stopSignal.aborted) return { kind: 'broken', error: next.error };
    // What a stopped work throws ends its answer too; a continuation streams: its first append tells the readers.
    return continues ? { kind: 'streams', pending: Promise.resolve(next) } : { kind: 'whole' };
  }
}
