/**
 * A streamed answer's body that survives its connection (PROTOCOL.md § 12, § 14.5):
 * when the bytes stop before the end — the socket reset, the server's error marker — it
 * sends the intent again with the same ID and the position it has, and carries on with
 * the next response's body, so its reader sees one body: no byte twice, none missing.
 *
 * How far it got is tracked by the kind of answer:
 * - `events`: an answer-once event stream (`X-Idempotent-Generation` + `text/event-stream`):
 *   only whole units are handed on, as the server sent them (found in the raw bytes by
 *   ./event-units.ts, never parsed and written anew), and the position is the offset
 *   after the last one; the reconnect carries `Last-Event-ID: <g>.<N>`.
 * - `range`: any other body with a generation: bytes counted, reconnect with
 *   `Range: bytes=N-` + `X-Idempotent-Generation: <g>`.
 * - `replay`: no generation (a store without logs, § 14.11; another server): the resend
 *   replays the stored answer whole, and the bytes already handed on are skipped.
 *
 * Markers, one rule each: the restart marker is handed on only when it voids bytes the
 * reader already has (so an SSE UI can drop its partial text; `restart` event either
 * way); the error marker is never handed on — it is a reconnect, and past the retry
 * limit the body errors with `IntentFailedError` (at once `IntentExhaustedError` for an
 * `intent-exhausted` marker: final); the stop marker is part of the answer
 * and the body ends cleanly after it. A non-event body that restarts after bytes were
 * handed on errors with `AnswerRestartedError`.
 *
 * Every loop here has a count and a time bound (docs/fetch-and-stream.md: "Deadlines and worst cases of the client"):
 * - breaks in a row with no new answer bytes handed on: at most `retry.limit`;
 * - resends that may run the work again — an error-marker resend, an answer that restarts
 *   (marker, header, or a new generation) — at most `retry.limit` for the body, whatever
 *   was handed on between them (a model that always breaks mid-answer, a crash-looping
 *   producer);
 * - `idleTimeout`: the reader asked for more and no new answer bytes came (keepalive
 *   comments, markers and bytes it already has do not count), reconnects and backoff
 *   included: the body errors with `DeadlineExceededError`.
 */

import { GENERATION_HEADER, LAST_EVENT_ID_HEADER, RANGE_HEADER } from '../../core/headers.js';
import { formatPosition } from '../../core/stream-events.js';
import { parseContentRange, parseGeneration } from '../../core/stream-protocol.js';
import { AbortError } from '../errors/abort-error.js';
import { AnswerRestartedError } from '../errors/answer-restarted-error.js';
import { ConnectionError } from '../errors/connection-error.js';
import { DeadlineExceededError } from '../errors/deadline-exceeded-error.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { SendEvent } from '../events.js';
import type { ResolvedRetryPolicy } from '../options.js';
import { isReplayed } from '../replayed.js';
import { backoffDelay } from '../send/backoff.js';
import { bodyModeOf, joinBytes, sleep } from './byte-resume.js';
import { EventUnits, join } from './event-units.js';
import { isFinalMarker, type MarkerData, markerFailure } from './marker-error.js';
import { type BodyPosition, headersAt } from './position.js';
import { hasField, type UnitPosition } from './unit-fields.js';

export interface ResumableBodyOptions {
  readonly requestId: string;
  readonly retry: ResolvedRetryPolicy;
  /** The headers that mark a replay (the client's `replayedHeaders`): a body with no generation takes up a replay. */
  readonly replayedHeaders: readonly string[];
  readonly signal: AbortSignal | undefined;
  /**
   * Longest wait in milliseconds for new answer bytes while the reader asks for more;
   * `false`: none.
   * @default false
   */
  readonly idleTimeout?: number | false;
  /**
   * Sends the intent again (same ID) with `headers` added; resolves with its response.
   * `signal` aborts it (the caller's signal, or the idle deadline); a failure is the
   * body's error and the body settles the intent.
   */
  readonly reconnect: (headers: Record<string, string>, signal: AbortSignal) => Promise<Response>;
  readonly emit: (event: SendEvent) => void;
  /** Called once, when the body ended, errored or was cancelled. */
  readonly settle: (error: unknown) => void;
  /** Requests made so far for the intent, for errors' context. */
  readonly attempts: () => number;
  /**
   * Where the reader already is: `first` is the answer sent again from there (its
   * position headers, `positionHeaders`), so the body carries on from it.
   */
  readonly from?: BodyPosition;
  /** Told the position just after each chunk, as the chunk is handed on (one call per chunk, in order). */
  readonly onChunk?: (at: BodyPosition) => void;
}

/** The body of `first`, resumable; `first`'s body must not have been read. */
export function resumableBody(first: Response, options: ResumableBodyOptions): ReadableStream<Uint8Array> {
  const { requestId, retry, signal, emit, idleTimeout = false } = options;
  const mode = bodyModeOf(first);
  let generation = options.from ? options.from.generation : parseGeneration(first.headers.get(GENERATION_HEADER));
  /** Bytes of the current generation handed on (range / replay), or the event position's offset. */
  let offset = options.from?.offset ?? 0;
  /** Bytes of the current generation to drop from the next body (replay mode only). */
  let skip = 0;
  /** Breaks in a row with no new answer bytes handed on in between; bounded by `retry.limit`. */
  let barren = 0;
  /** Runs of the work this body caused or saw after its first; bounded by `retry.limit`, progress or not. */
  let reruns = 0;
  /** The last reconnect was an error-marker resend, counted in `reruns`: the restart it gets is that same run. */
  let counted = false;
  let reconnects = 0;
  let response = first;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  let units: EventUnits | undefined;
  let pending: Uint8Array[] = [];
  /** `pending` holds new answer bytes (an event, or any bytes of a body that is not an event stream). */
  let news = false;
  let markerError: MarkerData | undefined;
  let settled = false;
  /** Set when `idleTimeout` passed: the error the body ends with. */
  let idled: DeadlineExceededError | undefined;
  /** Aborts a reconnect or backoff under way: the caller's signal, or the idle deadline. */
  const halt = new AbortController();
  const context = () => ({ requestId, attempts: options.attempts(), polls: 0 });

  const finish = (error: unknown) => {
    if (settled) return;
    settled = true;
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    options.settle(error);
  };

  /** Throws what ended the body from outside: the idle deadline, the caller's signal, or the reader's cancel. */
  function checkHalted(): void {
    if (idled) throw idled;
    if (signal?.aborted) throw new AbortError(context(), signal.reason);
    if (halt.signal.aborted) throw halt.signal.reason;
  }

  /** The answer started again as `next`: one more run of the work, unless it is the one an error-marker resend asked for. */
  function restarted(next: number | undefined): void {
    if (counted) counted = false;
    else if (++reruns > retry.limit) throw new AnswerRestartedError(next, context(), reruns);
  }

  function misplaced(asked: UnitPosition, start: UnitPosition): never {
    throw new ProtocolError(
      `the resumed answer starts at ${formatPosition(start.generation, start.offset)}, not at ` +
        `${formatPosition(asked.generation, asked.offset)} as asked; it cannot be joined to what was read.`,
      context(),
      response,
    );
  }

  /** Reads the next body's units, from `from` (the offset it starts at); a resumed one is checked to start there. */
  function startUnits(from: number, resumed: boolean) {
    units = new EventUnits(
      from,
      {
        units(bytes, at) {
          offset = at;
          pending.push(bytes);
          news ||= hasField(bytes);
        },
        restart(next, marker) {
          restarted(next);
          // The reader has (or is about to get) bytes of the voided generation: it must
          // drop them, so it gets the marker. With none, there is nothing to drop.
          if (offset > 0) pending.push(marker);
          generation = next;
          offset = 0;
          emit({ type: 'restart', requestId, generation: next });
        },
        error(data) {
          markerError = data;
        },
      },
      resumed ? { generation: generation!, misplaced } : undefined,
    );
  }
  // A body from a position carries on as a reconnect's would; a first body starts at 0.
  if (options.from) adopt(first);
  else {
    if (mode === 'events') startUnits(0, false);
    reader = first.body!.getReader();
  }

  /** Takes the next response after a break; leaves no reader when the answer is already whole. */
  async function reconnect(reason: 'cut' | 'error-marker', cause: unknown): Promise<void> {
    barren += 1;
    // An error-marker resend may run the work again (its record is `failed`): counted
    // whatever was handed on since the last one.
    counted = reason === 'error-marker';
    if (counted && ++reruns > retry.limit) throw markerFailure(markerError!, context());
    if (barren > retry.limit) {
      if (reason === 'error-marker') throw markerFailure(markerError!, context());
      throw new ConnectionError(context(), cause, 'cut');
    }
    reconnects += 1;
    const headers = headersAt(mode, { generation, offset });
    const at = headers[LAST_EVENT_ID_HEADER] ?? (headers[RANGE_HEADER] && formatPosition(generation!, offset));
    emit({ type: 'reconnect', requestId, reconnects, reason, position: at });
    // The first reconnect leaves at once (the server has the log); a body that keeps
    // breaking with nothing new backs off.
    if (barren > 1)
      await sleep(
        backoffDelay(barren - 1, { base: retry.delay, cap: retry.backoffLimit, random: retry.random }),
        halt.signal,
      );
    checkHalted();
    markerError = undefined;
    let next: Response;
    try {
      next = await options.reconnect(headers, halt.signal);
    } catch (error) {
      checkHalted();
      throw error;
    }
    adopt(next);
  }

  /** Makes `next` the body being read; none when it says the reader has it all. */
  function adopt(next: Response): void {
    response = next;
    // § 14.5: 204 to a Last-Event-ID at the end of an ended generation; 416 to a Range at
    // or past the end (the answer is whole when its length is what we have).
    if (next.status === 204) return;
    if (next.status === 416) {
      const range = parseContentRange(next.headers.get('content-range'));
      void next.body?.cancel().catch(() => undefined);
      if (range && 'length' in range && range.length === offset) return;
      throw new ConnectionError(context(), new Error(`the server answered 416 at offset ${offset}`), 'cut');
    }
    if (mode === 'events') {
      // The body's restart marker (or its first position) moves the position; the header only confirms it.
      startUnits(offset, true);
    } else {
      const join = joinBytes(mode, { generation, offset }, next, isReplayed(next, options.replayedHeaders));
      if (join.rerun) restarted(join.generation);
      if (!join.joins) {
        void next.body?.cancel().catch(() => undefined);
        throw new AnswerRestartedError(join.generation, context());
      }
      generation = join.generation;
      skip = join.skip;
      if (skip > 0) offset = 0;
    }
    reader = next.body?.getReader();
  }

  /** Hands on `chunk` of a range/replay body, minus what the reader already has. */
  function passBytes(chunk: Uint8Array) {
    let bytes = chunk;
    if (skip > 0) {
      const dropped = Math.min(skip, bytes.byteLength);
      skip -= dropped;
      offset += dropped;
      bytes = bytes.subarray(dropped);
    }
    if (bytes.byteLength === 0) return;
    offset += bytes.byteLength;
    pending.push(bytes);
    news = true;
  }

  async function pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    // Reads until there are new answer bytes to hand on, or the answer is over.
    for (;;) {
      if (!reader) return controller.close();
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        checkHalted();
        reader = undefined;
        units?.broke();
        flush(controller);
        await reconnect('cut', error);
        continue;
      }
      checkHalted();
      if (result.done) {
        units?.end();
        flush(controller);
        reader = undefined;
        if (markerError && isFinalMarker(markerError)) throw markerFailure(markerError, context());
        if (markerError) await reconnect('error-marker', undefined);
        continue;
      }
      if (units) units.write(result.value);
      else passBytes(result.value);
      if (flush(controller)) return;
    }
  }

  /** Hands on what is pending; true when it held new answer bytes (a keepalive comment or a marker alone does not end a pull). */
  function flush(controller: ReadableStreamDefaultController<Uint8Array>): boolean {
    if (pending.length === 0) return false;
    // One chunk per read, as it came: a reader pays per chunk, not per event.
    let size = 0;
    for (const bytes of pending) size += bytes.byteLength;
    options.onChunk?.({ generation, offset });
    controller.enqueue(join(pending, size));
    pending = [];
    const fresh = news;
    news = false;
    if (fresh) barren = 0;
    return fresh;
  }

  /** The reader waited `idleTimeout` for new answer bytes: the body ends, whatever is under way stops. */
  function idle() {
    idled = new DeadlineExceededError(idleTimeout as number, context(), undefined, 'idleTimeout');
    halt.abort(idled);
    void reader?.cancel(idled).catch(() => undefined);
  }

  let onAbort: (() => void) | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (!signal) return;
      // Aborting errors the body at once, chunks already queued for the reader included.
      onAbort = () => {
        const error = new AbortError(context(), signal.reason);
        halt.abort(error);
        void reader?.cancel(error).catch(() => undefined);
        reader = undefined;
        finish(error);
        controller.error(error);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    },
    async pull(controller) {
      const timer = idleTimeout === false ? undefined : setTimeout(idle, idleTimeout);
      try {
        await pull(controller);
        if (!reader) finish(undefined);
      } catch (error) {
        void reader?.cancel().catch(() => undefined);
        reader = undefined;
        finish(error);
        controller.error(error);
      } finally {
        clearTimeout(timer);
      }
    },
    async cancel(reason) {
      const current = reader;
      reader = undefined;
      halt.abort(reason);
      finish(reason ?? new AbortError(context(), reason));
      await current?.cancel(reason).catch(() => undefined);
    },
  });
}
