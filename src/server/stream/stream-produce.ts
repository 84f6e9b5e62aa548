import { GENERATION_HEADER, RESTARTED_HEADER } from '../../core/headers.js';
import { encodeHead, headOf } from '../format/answer-head.js';
import { ByteRuns, concat } from '../format/body.js';
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

/** Microtask turns a read may take and still count as "already there" (no I/O behind it). */
const READY_TURNS = 8;
/**
 * Reads that may be "already there" before the answer streams anyway: a JSON answer is
 * one or two chunks; a body of thousands of ready chunks must not hold the first byte
 * until its last one was read.
 */
const READY_READS = 16;

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
  /** The request named a position of another generation: it gets the restart first (§ 14.5). */
  readonly restarted: boolean;
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
  const { generation, maxResponseBytes } = context;
  const startedAt = Date.now();
  const sse = isEventStream(response.headers.get('content-type'));
  const head = headOf(response, context.replayHeaders);
  const reader = response.body?.getReader();
  let caller: CallerBody | undefined; // once streaming
  /** The restart marker, the attempt's first unit when it named an older generation (§ 14.5); never logged. */
  const marker = context.restarted && sse ? restartMarker(generation) : undefined;
  /** What the work produced before it streams (all of it, for a body that is all there at once). */
  const early = new ByteRuns();
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
  const toCaller = (bytes: Uint8Array): void => {
    if (!caller) early.push(bytes);
    else caller.push(bytes);
  };
  const out = (bytes: Uint8Array): void => {
    if (fenced) return; // never a zombie's byte after the successor took over
    toCaller(bytes);
    if (relog) relog.write(bytes);
    else keep(bytes);
  };
  const framer = sse ? new EventFramer(generation, out) : undefined;
  /** The handler's `answer-once.` event types never reach the framer: only the server writes markers (§ 14.4). */
  const reserved = sse ? new ReservedEventFilter() : undefined;
  const feed = (bytes: Uint8Array): void => (framer && reserved ? framer.write(reserved.write(bytes)) : out(bytes));
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
    const own = stopMarker(generation, framer.offset);
    if (!relog) {
      framer.writeOwn(own);
      return;
    }
    toCaller(own);
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
    const delivered = new Response(nullBody ? null : body, init); // its own copy of the headers
    delivered.headers.delete('content-length');
    delivered.headers.set(GENERATION_HEADER, String(generation));
    if (context.restarted) delivered.headers.set(RESTARTED_HEADER, 'true');
    return delivered;
  };

  // What is there already, read without waiting on I/O — up to `maxQueuedBytes`: a body
  // larger than that streams, as one that waits does, so it is never all held at once.
  if (!reader) return whole();
  let pending: Promise<Read>;
  for (let reads = 0; ; reads += 1) {
    // A batch is due already, or the reads ran long, or more is held than one caller may
    // queue: stream from here.
    if (reads === READY_READS || early.byteLength >= context.flushBytes || early.byteLength > context.maxQueuedBytes) {
      pending = settled(reader.read());
      break;
    }
    const read = await ready(reader.read());
    if ('later' in read) {
      pending = read.later; // waits on I/O: stream from here
      break;
    }
    const next = read.now;
    if (!next.ok) {
      if (!context.stopSignal.aborted)
        return { whole: true, produced: { ok: false, error: next.error }, delivered: deliver(null) };
      return whole(); // what a stopped work throws ends its answer
    }
    if (next.next.done) return whole();
    feed(next.next.value);
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
  /** The log under `token`: its appends answered fenced, gone or offset are judged against the claim as it is then. */
  const logFor = (token: string, since: number): LogBatcher => {
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
            if (holder.token === token) reopen(token, logGeneration);
            return;
          }
          holder.reclaim('append', token).then(
            (held) => held || fence(),
            (error: unknown) => context.report({ type: 'store-error', key: context.key, operation: 'acquire', error }),
          );
        },
      },
      encodeHead(head),
      since,
    );
    if (!kept) opened.retainBytes = maxResponseBytes;
    return opened;
  };
  batcher = logFor(context.token, startedAt);
  const first = early.byteLength > 0 ? early.join() : undefined;
  if (first) batcher.push(first);
  batcher.schedule();
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
  const body = new CallerBody({ store, key, generation, sse, maxQueuedBytes, leaseMs });
  if (marker) body.marker(marker);
  if (first) body.push(first);
  caller = body;

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
