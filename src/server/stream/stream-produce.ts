import { GENERATION_HEADER, RESTARTED_HEADER } from '../../core/headers.js';
import { encodeHead, headOf } from '../format/answer-head.js';
import { ByteRuns, concat } from '../format/bytes.js';
import type { Holder } from '../run/holder.js';
import { CallerBody } from './caller-body.js';
import { type BatcherContext, LogBatcher } from './log-batcher.js';
import { EventFramer } from './event-framer.js';
import { isEventStream } from '../../core/stream-protocol.js';
import { isNullBodyStatus } from '../../core/null-body.js';
import { ReservedEventFilter } from './reserved-events.js';
import { restartMarker, stopMarker } from '../format/sse-frame.js';
import { stoppedBody } from '../format/stop-cut.js';
import { type StoredResponse, storedAnswer } from '../format/stored-response.js';
import type { LogSlice } from '../store/stream-store.js';
import { LoggedAnswer } from './logged-answer.js';

/** Microtask turns a read may take and still count as "already there" (no I/O behind it). */
const READY_TURNS = 8;
/**
 * Reads that may be "already there" before the answer streams anyway: a JSON answer is
 * one or two chunks; a body of thousands of ready chunks must not hold the first byte
 * until its last one was read.
 */
const READY_READS = 16;

/** The last RFC 8673 byte position: live content ("more is coming"). */
const LIVE_LAST_BYTE = Number.MAX_SAFE_INTEGER;

/** The position the attempt's request named (§ 14.5): by `Last-Event-ID` or by `Range`. */
export interface CallerPosition {
  readonly by: 'event-id' | 'range';
  readonly generation: number | undefined;
  readonly offset: number;
}

/**
 * What the batcher needs (its `onFenced` also stops this producer's reading; a lost
 * record or log is handled here), the run's claim, and the attempt's generation and limits.
 */
export interface ProduceContext extends Omit<BatcherContext, 'onLost'> {
  /**
   * The run's claim: `token` is the one it held when the work answered. An append that
   * finds the record gone claims it again through it (§ 7.2); a claim made elsewhere (a
   * heartbeat's) reopens the log through `reopen`.
   */
  readonly holder: Holder;
  readonly generation: number;
  readonly maxResponseBytes: number;
  /** The most bytes queued for the attempt's connection before it reads on from the log. */
  readonly maxQueuedBytes: number;
  readonly replayHeaders: ReadonlySet<string>;
  /** The position the request named: of another generation, it gets the restart first (§ 14.5). */
  readonly position: CallerPosition | undefined;
  /**
   * The log an earlier generation left (a re-run's): when the work's head is its head and
   * its body reproduces every logged byte, the answer continues it (§ 14.12).
   */
  readonly logged?: LogSlice | undefined;
  /** Aborted when a stop was asked for this generation (§ 14.8). */
  readonly stopSignal: AbortSignal;
  /** Where the stop asked the stored answer to end (the record's `stopAt`), read once the body ended. */
  stopAt(): Promise<number | undefined>;
}

/** How the answer's body ended: what to complete the record with, or a broken stream (502). */
type AnswerEnd = { readonly ok: true; readonly stored: StoredResponse } | { readonly ok: false; readonly error: unknown };

/**
 * What `produce` made of the work's response. `whole`: its body was all there at once
 * (a JSON answer): answer it once the record is written, as any answer. Otherwise it
 * streams: `delivered` goes out now, `produced` settles when the body ended, and
 * `settle` ends the attempt's body once the record's write is known.
 */
export type Production =
  | { readonly whole: true; readonly delivered: Response; readonly produced: AnswerEnd }
  | {
      readonly whole: false;
      readonly delivered: Response;
      readonly produced: Promise<AnswerEnd>;
      settle(outcome: { readonly ok: boolean; readonly fenced: boolean }): void;
      /** The run holds the intent again under `token` and `generation` (its record or log vanished): log anew. */
      reopen(token: string, generation: number): void;
    };

type Read =
  | { readonly ok: true; readonly next: ReadableStreamReadResult<Uint8Array> }
  | { readonly ok: false; readonly error: unknown };

async function settled(read: Promise<ReadableStreamReadResult<Uint8Array>>): Promise<Read> {
  try {
    return { ok: true, next: await read };
  } catch (error) {
    return { ok: false, error };
  }
}

/** `read`'s outcome if it settles within a few microtask turns (no I/O behind it), else the promise of it. */
async function ready(
  read: Promise<ReadableStreamReadResult<Uint8Array>>,
): Promise<{ now: Read } | { later: Promise<Read> }> {
  let now: Read | undefined;
  const later = read.then(
    (next): Read => (now = { ok: true, next }),
    (error: unknown): Read => (now = { ok: false, error }),
  );
  for (let turn = 0; turn < READY_TURNS && now === undefined; turn += 1) await undefined;
  return now ? { now } : { later };
}

/**
 * Streams the work's response through (PROTOCOL.md § 14.2): the attempt that runs it gets
 * every byte as it is produced (SSE re-framed with positions, § 14.4) while the bytes go
 * to the log in batches (`LogBatcher`) and are kept whole, up to `maxResponseBytes`, for
 * the record. One path for every answer: a body that is all there at once (a JSON
 * answer) is the case where the stream ends within a few reads and before the first
 * batch is due — nothing is appended and the attempt gets it as a plain body. The attempt's connection closing
 * stops nothing.
 */
export async function produce(response: Response, context: ProduceContext): Promise<Production> {
  const { generation: own, maxResponseBytes, position } = context;
  const startedAt = Date.now();
  const sse = isEventStream(response.headers.get('content-type'));
  const head = headOf(response, context.replayHeaders);
  const loggedHead = encodeHead(head);
  const reader = response.body?.getReader();
  let caller: CallerBody | undefined; // once streaming
  /** The earlier generation's answer while this one may still continue it (§ 14.12). */
  let logged = LoggedAnswer.of(context.logged, own, loggedHead);
  /** The generation the answer body is framed in and named by: the logged one while it may be continued. */
  let generation = logged?.generation ?? own;
  /** The handler's bytes (reserved events dropped) while it may be continued: framed anew in `own` if it is not. */
  let seen = logged && sse ? new ByteRuns() : undefined;
  /** Whether the request's position names another generation than the answer's: it gets the restart (§ 14.5). */
  const restarts = (): boolean => position?.generation !== undefined && position.generation !== generation;
  /** What the work produced before it streams (all of it, for a body that is all there at once). */
  let early = new ByteRuns();
  let kept: ByteRuns | undefined = new ByteRuns();
  let fenced = false;
  let batcher: LogBatcher | undefined; // once streaming
  /** The log's generation: the caller's, until the run claims a vanished record again under a new one. */
  let logGeneration = generation;
  /** After such a claim (event streams): re-frames what the caller gets in the log's generation. */
  let relog: EventFramer | undefined;

  /** For the record (up to `maxResponseBytes`) and, once streaming, the log. */
  const keep = (bytes: Uint8Array): void => {
    if (kept) {
      if (kept.byteLength + bytes.byteLength <= maxResponseBytes) kept.push(bytes);
      else kept = undefined;
      if (!kept && batcher) batcher.retainBytes = maxResponseBytes;
    }
    batcher?.push(bytes);
  };
  /** Body bytes before the caller's position that are still to come: not sent again (a continued answer, § 14.12). */
  let skip = 0;
  const toCaller = (bytes: Uint8Array): void => {
    if (!caller) early.push(bytes);
    else if (skip >= bytes.byteLength) skip -= bytes.byteLength;
    else {
      caller.push(skip > 0 ? bytes.subarray(skip) : bytes);
      skip = 0;
    }
  };
  const out = (bytes: Uint8Array): void => {
    if (fenced) return; // never a zombie's byte after the successor took over
    logged?.compare(bytes);
    toCaller(bytes);
    if (relog) relog.write(bytes);
    else keep(bytes);
  };
  let framer = sse ? new EventFramer(generation, out) : undefined;
  /** The handler's `answer-once.` event types never reach the framer: only the server writes markers (§ 14.4). */
  const reserved = sse ? new ReservedEventFilter() : undefined;
  const feed = (bytes: Uint8Array): void => {
    if (framer && reserved) {
      const kept = reserved.write(bytes);
      seen?.push(kept);
      framer.write(kept);
    } else {
      out(bytes);
    }
    if (logged?.reproduced) seen = undefined;
    else if (logged && !logged.open) ownAnswer();
  };
  /**
   * The body is not the logged one (a byte differed, or it ended short): the answer is
   * this generation's own, as without a log to continue — an event stream framed anew in it.
   */
  const ownAnswer = (): void => {
    if (!logged) return;
    logged = undefined;
    generation = own;
    if (!framer || !seen) return;
    const handled = seen.join();
    seen = undefined;
    early = new ByteRuns();
    kept = new ByteRuns();
    framer = new EventFramer(own, out);
    framer.write(handled);
  };
  /** The work's body ended (or was stopped): what the framer holds out, the stop marker; whether it was stopped. */
  const endBody = (): boolean => {
    if (framer && reserved) framer.write(reserved.end());
    framer?.end();
    relog?.end();
    const stopped = context.stopSignal.aborted;
    if (stopped) writeStopMarker();
    return stopped;
  };
  /** The stop marker (§ 14.8): the attempt's last unit, and the log's, in the log's generation. */
  function writeStopMarker(): void {
    if (!framer || fenced) return;
    const marker = stopMarker(generation, framer.offset);
    if (!relog) {
      framer.writeOwn(marker);
      return;
    }
    toCaller(marker);
    relog.writeOwn(stopMarker(logGeneration, relog.offset));
  }
  const answered = (body: Uint8Array | undefined, stopped: boolean): AnswerEnd => ({
    ok: true,
    stored: storedAnswer(head.status, head.headers, body, stopped),
  });
  /** A body that was all there at once: the answer and the attempt's body, joined once. */
  const whole = (): Extract<Production, { whole: true }> => {
    const stopped = endBody();
    const body = early.join();
    const marker = restarts() && sse ? restartMarker(generation) : undefined;
    // Nothing streamed, so what was kept is what was produced.
    const produced = answered(kept && body, stopped);
    return {
      whole: true,
      produced,
      delivered: deliver(marker ? concat([marker, body], marker.byteLength + body.byteLength) : body),
    };
  };

  const init = { status: response.status, statusText: response.statusText, headers: response.headers };
  const nullBody = isNullBodyStatus(response.status);
  const deliver = (body: BodyInit | null): Response => {
    const ranged = position?.by === 'range' && position.generation === generation && generation !== own;
    // Its own copy of the headers.
    const delivered = new Response(nullBody ? null : body, ranged ? { ...init, status: 206, statusText: '' } : init);
    delivered.headers.delete('content-length');
    delivered.headers.set(GENERATION_HEADER, String(generation));
    if (restarts()) delivered.headers.set(RESTARTED_HEADER, 'true');
    // A continued answer from the caller's byte: live content, as an attach answers (§ 14.5).
    if (ranged) delivered.headers.set('Content-Range', `bytes ${position.offset}-${LIVE_LAST_BYTE}/*`);
    return delivered;
  };

  // What is there already, read without waiting on I/O — up to `maxQueuedBytes`: a body
  // larger than that streams, as one that waits does, so it is never all held at once.
  // While the body may still continue a logged answer, nothing goes out and nothing is
  // logged: it is read, waiting on I/O if need be, until a byte differs or every logged
  // byte came again (§ 14.12) — bounded by the logged length.
  if (!reader) {
    ownAnswer();
    return whole();
  }
  let pending: Promise<Read>;
  for (let reads = 0; ; reads += 1) {
    const comparing = logged?.open === true;
    // A batch is due already, or the reads ran long, or more is held than one caller may
    // queue: stream from here.
    if (
      !comparing &&
      (reads >= READY_READS || early.byteLength >= context.flushBytes || early.byteLength > context.maxQueuedBytes)
    ) {
      pending = settled(reader.read());
      break;
    }
    let next: Read;
    if (comparing) next = await settled(reader.read());
    else {
      const read = await ready(reader.read());
      if ('later' in read) {
        pending = read.later; // waits on I/O: stream from here
        break;
      }
      next = read.now;
    }
    if (next.ok && !next.next.done) {
      feed(next.next.value);
      continue;
    }
    if (!logged?.reproduced) ownAnswer(); // it ended short of the logged answer
    if (!next.ok && !context.stopSignal.aborted) {
      return { whole: true, produced: { ok: false, error: next.error }, delivered: deliver(null) };
    }
    if (!logged) return whole(); // what a stopped work throws ends its answer too
    pending = Promise.resolve(next); // a continuation streams: its first append tells the readers
    break;
  }

  // It streams: the head and what was read go out now, the rest as it comes.
  const source = reader;
  const stopReading = (reason: unknown): void => {
    void source.cancel(reason).catch(() => undefined);
  };
  const { holder } = context;
  const fence = (): void => {
    fenced = true;
    stopReading(new Error('answer-once: another worker took this intent over.'));
    context.onFenced();
  };
  // The choice is made: the answer continues the logged one (every logged byte came
  // again), or it is this generation's own.
  logGeneration = generation;
  /** The logged answer this one continues (§ 14.12): its log is appended to, from its length. */
  let continued = logged;
  /**
   * The log under `token`, from `offset` when it continues an earlier generation's: its
   * appends answered fenced, gone or offset are judged against the claim as it is then.
   */
  const logFor = (token: string, since: number, offset = 0): LogBatcher => {
    const opened = new LogBatcher(
      {
        store: context.store,
        key: context.key,
        flushMs: context.flushMs,
        flushBytes: context.flushBytes,
        leaseMs: context.leaseMs,
        report: context.report,
        onStop: context.onStop,
        onRenewed: context.onRenewed,
        token,
        // A batcher of an older claim (replaced since, or while a claim is in flight) is not fenced: the run still holds it.
        onFenced: () => void holder.settled().then(() => holder.token === token && fence()),
        onLost: (what) => {
          if (what === 'log') {
            if (holder.token !== token) return;
            if (continued && !opened.logged) {
              // The store did not take the continuation (its log changed, or it does not
              // continue answers): the answer is this generation's own, as a reopened one.
              continued = undefined;
              reopen(token, holder.generation ?? own);
            } else {
              reopen(token, logGeneration);
            }
            return;
          }
          holder.reclaim('append', token).then(
            (held) => held || fence(),
            (error: unknown) => context.report({ type: 'store-error', key: context.key, operation: 'acquire', error }),
          );
        },
      },
      loggedHead,
      since,
      continued && { generation: continued.generation, offset },
    );
    if (!kept) opened.retainBytes = maxResponseBytes;
    return opened;
  };
  batcher = logFor(context.token, startedAt, continued?.length);
  const first = early.byteLength > 0 ? early.join() : undefined;
  const unlogged = continued ? first?.subarray(continued.length) : first;
  if (unlogged && unlogged.byteLength > 0) batcher.push(unlogged);
  // A continuation's first append goes at once: the readers of the logged answer wait for it.
  if (continued) batcher.now();
  else batcher.schedule();
  /**
   * The record (or only its log) vanished and the run holds the intent again under `token`:
   * the log starts over with what was kept, re-framed when the generation is new, so
   * readers get the whole answer (a restart marker first) and the record what they get.
   * An answer past `maxResponseBytes` cannot start over: it is no longer logged.
   */
  const reopen = (token: string, reclaimed: number): void => {
    batcher?.cancel();
    batcher = undefined;
    if (fenced || !kept) return;
    const sofar = kept.join();
    kept = new ByteRuns();
    if (reclaimed !== logGeneration) continued = undefined; // a new record: nothing to continue
    batcher = logFor(token, Date.now());
    if (sse && reclaimed !== logGeneration) {
      relog?.end();
      relog = new EventFramer(reclaimed, keep);
      relog.write(sofar);
    } else {
      keep(sofar);
    }
    logGeneration = reclaimed;
    batcher.schedule();
  };
  const { store, key, maxQueuedBytes, leaseMs } = context;
  /** A caller that named a position of the continued answer gets it from there. */
  const from = continued && position?.generation === generation ? position.offset : 0;
  const body = new CallerBody({ store, key, generation, offset: from, sse, maxQueuedBytes, leaseMs });
  if (restarts() && sse) body.marker(restartMarker(generation));
  caller = body;
  skip = from;
  if (first) toCaller(first);

  const produced = (async (): Promise<AnswerEnd> => {
    const onStop = (): void => stopReading(context.stopSignal.reason);
    context.stopSignal.addEventListener('abort', onStop, { once: true });
    if (context.stopSignal.aborted) onStop();
    try {
      for (let next = await pending; ; next = await settled(source.read())) {
        if (!next.ok && !context.stopSignal.aborted) {
          await batcher?.drain(true); // readers get every byte the caller got before the error marker
          return { ok: false, error: next.error };
        }
        if (!next.ok || next.next.done || fenced) break;
        feed(next.next.value);
      }
      framer?.end();
      relog?.end();
      const stopped = context.stopSignal.aborted;
      if (!stopped) return await finish(answered(kept?.join(), false));
      const produced = kept?.join(); // before the stop marker
      writeStopMarker(); // the attempt's and the log's last unit
      // The stored answer ends where the stopping reader was, when the stop said so (§ 14.8).
      const cut = kept && produced && stoppedBody(produced, await context.stopAt(), sse, logGeneration);
      return await finish(answered(cut, true));
    } finally {
      context.stopSignal.removeEventListener('abort', onStop);
      batcher?.cancel();
    }
  })();
  /** The answer is known: readers finish from the log when it is not replayable, so its last batch goes there first. */
  async function finish(outcome: AnswerEnd): Promise<AnswerEnd> {
    await batcher?.drain(kept === undefined);
    // A continuation whose first append never landed is not one: the record would name the wrong generation.
    if (continued && batcher?.logged === false) {
      return { ok: false, error: new Error('answer-once: the continued answer could not be logged.') };
    }
    return outcome;
  }

  return {
    whole: false,
    delivered: deliver(body.stream),
    produced,
    settle({ ok, fenced: lost }) {
      body.end(ok && !lost ? { ok: true } : { ok: false, status: lost ? 503 : 502 });
    },
    reopen,
  };
}
