import { GENERATION_HEADER, RESTARTED_HEADER } from '../core/headers.js';
import { encodeHead, headOf } from './answer-head.js';
import { concat } from './body.js';
import { emit, type IdempotencyEventListener } from './events.js';
import { errorMarker, EventFramer, isEventStream, restartMarker, stopMarker } from './sse-frame.js';
import { type StoredResponse, storedAnswer } from './stored-response.js';
import type { StreamStore } from './stream-store.js';

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

export interface ProduceContext {
  readonly store: StreamStore;
  readonly key: string;
  readonly token: string;
  readonly generation: number;
  readonly flushMs: number;
  readonly flushBytes: number;
  readonly maxResponseBytes: number;
  readonly replayHeaders: ReadonlySet<string>;
  readonly onEvent: IdempotencyEventListener | undefined;
  /** The request named a position of another generation: it gets the restart first (§ 14.5). */
  readonly restarted: boolean;
  /** Aborted when a stop was asked for this generation (§ 14.8). */
  readonly stopSignal: AbortSignal;
  /** An append said a stop was asked: abort the work's signal. */
  readonly requestStop: () => void;
  /** An append was fenced: a successor holds the intent; abort the work. */
  readonly fenced: () => void;
}

/** How the body ended: an answer to complete the record with, or a broken stream (502). */
type Produced =
  | { readonly ok: true; readonly stored: StoredResponse }
  | { readonly ok: false; readonly error: unknown };

export interface Production {
  /** The response for the attempt that runs the work: the body as it is produced. */
  readonly delivered: Response;
  /** Settles when the work's body ended (or broke), the last needed append done. */
  readonly produced: Promise<Produced>;
  /** Ends the attempt's body once the record's write is known (`fenced`: it was not ours). */
  settle(outcome: { readonly ok: boolean; readonly fenced: boolean }): void;
}

/**
 * Streams the work's response through (PROTOCOL.md § 14.2): the attempt that runs it gets
 * every byte as it is produced (SSE re-framed with positions, § 14.4), while the bytes
 * are appended to the log in batches — at most one append in flight, a batch due
 * `flushMs` after its first byte or at `flushBytes` — and kept whole (up to
 * `maxResponseBytes`) for the record. The attempt's connection closing stops nothing.
 */
export function produce(response: Response, context: ProduceContext): Production {
  const { store, key, token, generation, flushMs, flushBytes, maxResponseBytes } = context;
  const sse = isEventStream(response.headers.get('content-type'));
  const head = headOf(response, context.replayHeaders);
  const nullBody = NULL_BODY_STATUSES.has(response.status);

  // The attempt's own body. Enqueued without backpressure: a slow caller never slows the work.
  let caller: ReadableStreamDefaultController<Uint8Array> | undefined;
  let callerOpen = true;
  const callerStream = new ReadableStream<Uint8Array>({
    start: (controller) => {
      caller = controller;
    },
    cancel: () => {
      callerOpen = false; // the client went away: the answer goes on into the log
    },
  });
  const send = (bytes: Uint8Array): void => {
    if (callerOpen) caller?.enqueue(bytes);
  };

  // What the record will hold: every byte, until it outgrows the limit.
  let kept: Uint8Array[] | undefined = [];
  let keptBytes = 0;

  // The batching.
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let pendingSince = Date.now(); // the head itself is due after one window
  let appended = 0;
  let headLogged = false;
  let appending: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let logging = true; // false once fenced or gone: the log is no longer ours to write
  let isFenced = false;
  let retry: Uint8Array | undefined; // a batch whose append threw: sent again, alone, at its offset
  const reader = response.body?.getReader();
  const stopReading = (reason: unknown): void => {
    void reader?.cancel(reason).catch(() => undefined);
  };

  const append = async (data: Uint8Array, again: boolean): Promise<void> => {
    try {
      const result = await store.append(key, token, {
        offset: appended,
        data,
        ...(headLogged ? {} : { head: encodeHead(head) }),
        ...(kept === undefined ? { retainBytes: maxResponseBytes } : {}),
      });
      if (result.ok) {
        appended = result.length;
        headLogged = true;
        if (result.stopRequested) context.requestStop();
      } else if (result.reason === 'offset' && again) {
        // The first try landed although its answer was lost: we are the only writer.
        appended += data.byteLength;
        headLogged = true;
      } else {
        logging = false;
        if (result.reason === 'fenced') {
          isFenced = true;
          stopReading(new Error('answer-once: another worker took this intent over.'));
          context.fenced();
        }
      }
    } catch (error) {
      emit(context.onEvent, { type: 'store-error', key, operation: 'append', error });
      retry = data;
    }
  };

  const flush = (): void => {
    clearTimeout(timer);
    timer = undefined;
    if (appending || !logging || (headLogged && pendingBytes === 0 && !retry)) return;
    const again = retry !== undefined;
    const data = retry ?? concat(pending, pendingBytes);
    if (retry) retry = undefined;
    else [pending, pendingBytes] = [[], 0];
    appending = append(data, again).finally(() => {
      appending = undefined;
      schedule();
    });
  };

  const schedule = (): void => {
    if (appending || timer || !logging || (headLogged && pendingBytes === 0 && !retry)) return;
    if (pendingBytes >= flushBytes) {
      flush();
      return;
    }
    timer = setTimeout(flush, Math.max(0, pendingSince + flushMs - Date.now()));
  };

  const out = (bytes: Uint8Array): void => {
    if (isFenced) return; // never a zombie's byte after the successor took over
    send(bytes);
    if (kept) {
      keptBytes += bytes.byteLength;
      if (keptBytes > maxResponseBytes) kept = undefined;
      else kept.push(bytes);
    }
    if (pendingBytes === 0) pendingSince = Date.now();
    pending.push(bytes);
    pendingBytes += bytes.byteLength;
    schedule();
  };

  const framer = sse ? new EventFramer(generation, out) : undefined;
  if (sse && context.restarted) send(restartMarker(generation));

  const produced = (async (): Promise<Produced> => {
    const onStop = (): void => stopReading(context.stopSignal.reason);
    context.stopSignal.addEventListener('abort', onStop, { once: true });
    if (context.stopSignal.aborted) onStop();
    schedule();
    try {
      for (;;) {
        if (!reader) break;
        let next: ReadableStreamReadResult<Uint8Array>;
        try {
          next = await reader.read();
        } catch (error) {
          if (context.stopSignal.aborted) break; // what a stopped work throws ends its answer
          // Readers get every byte the caller got before the error marker.
          clearTimeout(timer);
          timer = undefined;
          await appending;
          if (logging && (pendingBytes > 0 || retry)) {
            flush();
            await appending;
          }
          return { ok: false, error };
        }
        if (next.done || isFenced) break;
        if (framer) framer.write(next.value);
        else out(next.value);
      }
      framer?.end();
      const stopped = context.stopSignal.aborted;
      if (stopped && framer) framer.writeOwn(stopMarker(generation, framer.offset));
      clearTimeout(timer);
      timer = undefined;
      await appending;
      if (kept === undefined && logging) {
        // Not replayable: readers finish from the log, so the last batch goes there first.
        for (let tries = 0; tries < 3 && logging && (pendingBytes > 0 || retry); tries += 1) {
          flush();
          await appending;
        }
      }
      const body = kept === undefined ? undefined : concat(kept, keptBytes);
      return { ok: true, stored: storedAnswer(head.status, head.headers, body, stopped) };
    } finally {
      context.stopSignal.removeEventListener('abort', onStop);
      clearTimeout(timer);
      timer = undefined;
    }
  })();

  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.set(GENERATION_HEADER, String(generation));
  if (context.restarted) headers.set(RESTARTED_HEADER, 'true');
  const delivered = new Response(nullBody ? null : callerStream, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });

  return {
    delivered,
    produced,
    settle({ ok, fenced }) {
      if (!callerOpen || !caller) return;
      callerOpen = false;
      if (ok && !fenced) return caller.close();
      if (!sse) return caller.error(new Error('answer-once: this answer broke off; resend to get it.'));
      caller.enqueue(errorMarker(fenced ? 503 : 502));
      caller.close();
    },
  };
}
