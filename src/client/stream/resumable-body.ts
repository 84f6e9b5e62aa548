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
 * limit the body errors with `IntentFailedError`; the stop marker is part of the answer
 * and the body ends cleanly after it. A non-event body that restarts after bytes were
 * handed on errors with `AnswerRestartedError`.
 */
import { backoffDelay } from '../../core/backoff.js';
import {
  GENERATION_HEADER,
  isTrueHeader,
  LAST_EVENT_ID_HEADER,
  RANGE_HEADER,
  RESTARTED_HEADER,
} from '../../core/headers.js';
import { formatPosition } from '../../core/stream-events.js';
import { isEventStream, parseContentRange, parseGeneration } from '../../core/stream-protocol.js';
import { AbortError } from '../errors/abort-error.js';
import { AnswerRestartedError } from '../errors/answer-restarted-error.js';
import { ConnectionError } from '../errors/connection-error.js';
import { IntentFailedError } from '../errors/intent-failed-error.js';
import type { ResolvedRetryPolicy } from '../options.js';
import type { SendEvent } from '../events.js';
import { concat, EventUnits } from './event-units.js';

type BodyMode = 'events' | 'range' | 'replay';

export interface ResumableBodyOptions {
  readonly requestId: string;
  readonly retry: ResolvedRetryPolicy;
  readonly signal: AbortSignal | undefined;
  /** Sends the intent again (same ID) with `headers` added; resolves with its response. */
  readonly reconnect: (headers: Record<string, string>) => Promise<Response>;
  readonly emit: (event: SendEvent) => void;
  /** Called once, when the body ended, errored or was cancelled. */
  readonly settle: (error: unknown) => void;
  /** Requests made so far for the intent, for errors' context. */
  readonly attempts: () => number;
}

function bodyModeOf(response: Response): BodyMode {
  if (parseGeneration(response.headers.get(GENERATION_HEADER)) === undefined) return 'replay';
  return isEventStream(response.headers.get('content-type')) ? 'events' : 'range';
}

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    if (ms <= 0) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** The body of `first`, resumable; `first`'s body must not have been read. */
export function resumableBody(first: Response, options: ResumableBodyOptions): ReadableStream<Uint8Array> {
  const { requestId, retry, signal, emit } = options;
  const mode = bodyModeOf(first);
  let generation = parseGeneration(first.headers.get(GENERATION_HEADER));
  /** Bytes of the current generation handed on (range / replay), or the event position's offset. */
  let offset = 0;
  /** Bytes of the current generation to drop from the next body (replay mode only). */
  let skip = 0;
  /** Breaks in a row with no byte handed on in between; bounded by `retry.limit`. */
  let barren = 0;
  let reconnects = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined = first.body!.getReader();
  let units: EventUnits | undefined;
  let pending: Uint8Array[] = [];
  let markerError: { code: string | undefined; status: number | undefined } | undefined;
  let settled = false;
  const context = () => ({ requestId, attempts: options.attempts(), polls: 0 });

  const finish = (error: unknown) => {
    if (settled) return;
    settled = true;
    if (onAbort) signal?.removeEventListener('abort', onAbort);
    options.settle(error);
  };

  /** Reads the next body's units, from `from` (the offset it starts at). */
  function startUnits(from: number) {
    units = new EventUnits(from, {
      units(bytes, at) {
        offset = at;
        pending.push(bytes);
      },
      restart(next, marker) {
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
    });
  }
  if (mode === 'events') startUnits(0);

  function positionHeaders(): Record<string, string> {
    if (generation === undefined) return {};
    if (mode === 'events') return { [LAST_EVENT_ID_HEADER]: formatPosition(generation, offset) };
    return offset === 0 ? {} : { [RANGE_HEADER]: `bytes=${offset}-`, [GENERATION_HEADER]: String(generation) };
  }

  /** Takes the next response after a break; leaves no reader when the answer is already whole. */
  async function reconnect(reason: 'cut' | 'error-marker', cause: unknown): Promise<void> {
    barren += 1;
    if (barren > retry.limit) {
      if (reason === 'error-marker') {
        const status = markerError!.status ?? 502;
        const data = { code: markerError!.code ?? 'intent-failed', status };
        const response = new Response(JSON.stringify(data), { status, headers: { 'content-type': 'application/json' } });
        throw new IntentFailedError({ response, data, problem: { ...data, title: data.code } as never }, context());
      }
      throw new ConnectionError(context(), cause, 'cut');
    }
    reconnects += 1;
    const headers = positionHeaders();
    const at = headers[LAST_EVENT_ID_HEADER] ?? (headers[RANGE_HEADER] && formatPosition(generation!, offset));
    emit({ type: 'reconnect', requestId, reconnects, reason, position: at });
    // The first reconnect leaves at once (the server has the log); a body that keeps
    // breaking with nothing new backs off.
    if (barren > 1)
      await sleep(backoffDelay(barren - 1, { base: retry.delay, cap: retry.backoffLimit, random: retry.random }), signal);
    if (signal?.aborted) throw new AbortError(context(), signal.reason);
    markerError = undefined;
    adopt(await options.reconnect(headers));
  }

  /** Makes `next` the body being read; none when it says the reader has it all. */
  function adopt(next: Response): void {
    const restarted = isTrueHeader(next.headers.get(RESTARTED_HEADER));
    const nextGeneration = parseGeneration(next.headers.get(GENERATION_HEADER));
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
      // The restart marker inside the body moves the position; the header only confirms it.
      startUnits(offset);
    } else if (mode === 'range') {
      const same = !restarted && nextGeneration === generation;
      const range = next.status === 206 ? parseContentRange(next.headers.get('content-range')) : undefined;
      if (same && range && 'start' in range && range.start === offset) {
        // 206 from where we are: the body continues.
      } else if (same && next.status !== 206) {
        // The whole body of the same generation (the Range was ignored): skip what we have.
        skip = offset;
        offset = 0;
      } else if (offset === 0 && next.status !== 206) {
        // Restarted before any byte reached the reader: nothing to take back.
        generation = nextGeneration;
      } else {
        void next.body?.cancel().catch(() => undefined);
        throw new AnswerRestartedError(nextGeneration, context());
      }
    } else {
      const replayed = next.headers.get('x-idempotent-replayed') !== null;
      if (offset > 0 && !replayed) {
        void next.body?.cancel().catch(() => undefined);
        throw new AnswerRestartedError(nextGeneration, context());
      }
      skip = offset;
      offset = 0;
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
  }

  async function pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    // Reads until there is something to hand on, or the answer is over.
    for (;;) {
      if (!reader) return controller.close();
      let result: ReadableStreamReadResult<Uint8Array>;
      try {
        result = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw new AbortError(context(), signal.reason);
        reader = undefined;
        await reconnect('cut', error);
        continue;
      }
      if (result.done) {
        units?.end();
        flush(controller);
        reader = undefined;
        if (markerError) await reconnect('error-marker', undefined);
        continue;
      }
      if (units) units.write(result.value);
      else passBytes(result.value);
      if (flush(controller)) return;
    }
  }

  function flush(controller: ReadableStreamDefaultController<Uint8Array>): boolean {
    if (pending.length === 0) return false;
    // One chunk per read, as it came: a reader pays per chunk, not per event.
    let size = 0;
    for (const bytes of pending) size += bytes.byteLength;
    controller.enqueue(concat(pending, size));
    pending = [];
    barren = 0;
    return true;
  }

  let onAbort: (() => void) | undefined;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (!signal) return;
      // Aborting errors the body at once, chunks already queued for the reader included.
      onAbort = () => {
        const error = new AbortError(context(), signal.reason);
        void reader?.cancel(error).catch(() => undefined);
        reader = undefined;
        finish(error);
        controller.error(error);
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    },
    async pull(controller) {
      try {
        await pull(controller);
        if (!reader) finish(undefined);
      } catch (error) {
        void reader?.cancel().catch(() => undefined);
        reader = undefined;
        finish(error);
        controller.error(error);
      }
    },
    async cancel(reason) {
      const current = reader;
      reader = undefined;
      finish(reason ?? new AbortError(context(), reason));
      await current?.cancel(reason).catch(() => undefined);
    },
  });
}
