import type { ProblemCode } from '../../core/problems.js';
import { isEventStream } from '../../core/stream-protocol.js';
import { errorMarker, restartMarker } from '../format/sse-frame.js';
import { beforeStop } from '../format/stop-cut.js';
import { parseStoredFailure, parseStoredResponse, storedBody } from '../format/stored-response.js';
import { isExhausted } from '../run/bound.js';
import {
  answerGeneration,
  isChoosing,
  type LogPosition,
  type LogSnapshot,
  type StreamStore,
} from '../store/stream-store.js';

/** How long one read of a follower waits before it looks again (the lease bounds the loop). */
const FOLLOW_WAIT_MS = 30_000;
/** The first pause before a reader looks again for a record the store lost or a store that failed; it doubles, up to a second. */
const LOST_RETRY_MS = 50;
const EMPTY = new Uint8Array(0);

/** What a follower starts with, and how long it waits for a record the store lost. */
export interface FollowOptions {
  /** The head says the body is an event stream: markers, not aborts. */
  readonly sse: boolean;
  /** The bytes already in hand, from `from`'s offset. */
  readonly first?: Uint8Array;
  /** A marker to send first (the restart marker, § 14.5); it takes no offset. */
  readonly marker?: Uint8Array | undefined;
  /**
   * How long a reader that finds the record gone, or the store failing, looks again
   * before it ends with the error marker: a live holder claims its record again at its
   * next write (§ 7.2), so the reader gets the answer rather than a resend that would
   * run the work a second time. The handler passes its `leaseMs`.
   * @default 0
   */
  readonly patienceMs?: number;
}

/**
 * A reader's body (PROTOCOL.md § 14.6, § 14.7): the bytes of generation `from` from its
 * offset, then each batch as the store appends it — woken by the append, never polling —
 * until the generation ends: the rest from the record, a restart marker and the next
 * generation (event streams), or the error marker (event streams) / an aborted body. A
 * new claim's generation that continues this answer (§ 14.12) is followed on, no marker. A
 * position past the end the generation came to gets the restart and the whole answer
 * (event streams) or an aborted body, never an empty complete one.
 * Cancelling it (the client left) only stops this reader.
 */
export function followLog(
  store: StreamStore,
  key: string,
  from: LogPosition,
  options: FollowOptions,
): ReadableStream<Uint8Array> {
  const { sse, first = EMPTY, patienceMs = 0 } = options;
  let { generation, offset } = from;
  let pendingFirst: Uint8Array | undefined = first.byteLength > 0 ? first : undefined;
  let pendingMarker = options.marker;
  const cancelled = new AbortController();
  /** Since when the record has been gone or the store failing, and the next pause. */
  let lostSince: number | undefined;
  let pause = LOST_RETRY_MS;
  /** Whether to look again (after a pause) for a lost record or a failed store, within `patienceMs`. */
  const lookAgain = async (): Promise<boolean> => {
    lostSince ??= Date.now();
    const left = lostSince + patienceMs - Date.now();
    if (left <= 0) return false;
    await sleep(Math.min(pause, left), cancelled.signal);
    pause = Math.min(pause * 2, 1_000);
    return true;
  };

  const end = (controller: ReadableStreamDefaultController<Uint8Array>, status: number, code?: ProblemCode): void => {
    if (sse) {
      controller.enqueue(errorMarker(status, code));
      controller.close();
    } else {
      controller.error(new Error('answer-once: this answer broke off; resend to get it.'));
    }
  };

  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (pendingMarker) {
        controller.enqueue(pendingMarker); // not part of the answer: takes no offset
        pendingMarker = undefined;
        return;
      }
      if (pendingFirst) {
        controller.enqueue(pendingFirst);
        offset += pendingFirst.byteLength;
        pendingFirst = undefined;
        return;
      }
      // Bounded: each turn waits for a write or FOLLOW_WAIT_MS; a live lease keeps it going.
      for (;;) {
        let snapshot: LogSnapshot;
        try {
          snapshot = await store.read(key, { generation, offset }, { waitMs: FOLLOW_WAIT_MS, signal: cancelled.signal });
        } catch {
          if (await lookAgain()) continue;
          return end(controller, 503); // the store failed: resend (the answer is not lost)
        }
        if (cancelled.signal.aborted) return;
        const { record, log } = snapshot;
        if (!record) {
          if (await lookAgain()) continue; // its holder claims it again at its next write
          return end(controller, 503);
        }
        lostSince = undefined;
        pause = LOST_RETRY_MS;
        // Nothing more will run: a resend gets the final 409 (§ 5.7).
        if (isExhausted(record)) return end(controller, 409, 'intent-exhausted');
        const answer = answerGeneration(record);
        if (answer !== generation) {
          // A new claim that may continue this answer has not chosen yet (§ 14.12): wait for
          // its first append — it continues, and this reader follows on — or for the record
          // to settle; within the lease, as for any live generation (a claim that died
          // choosing leaves the answer to the next one: resend).
          if (isChoosing(snapshot, generation) && record.state === 'processing') {
            if (record.leaseExpiresAt > Date.now()) continue;
            return end(controller, 503);
          }
          if (!sse || answer === undefined) return end(controller, 503);
          generation = answer;
          offset = 0;
          controller.enqueue(restartMarker(generation));
          return;
        }
        if (record.state === 'failed') return end(controller, Math.max(502, parseStoredFailure(record.error).status));
        if (record.state === 'completed') {
          const stored = parseStoredResponse(record.result);
          const whole = stored.replayable ? (storedBody(stored) ?? EMPTY) : undefined;
          const length = whole?.byteLength ?? (log?.generation === generation ? log.length : 0);
          if (offset > length) {
            // The reader named a position past the end the generation came to (§ 14.5): for
            // an event stream the restart and the whole answer, for other bodies an abort.
            if (!sse || !whole) return end(controller, 410, 'response-not-replayable');
            controller.enqueue(restartMarker(generation));
            if (whole.byteLength > 0) controller.enqueue(whole);
            return controller.close();
          }
          const rest = whole
            ? whole.subarray(offset)
            : log?.generation === generation && log.offset <= offset
              ? log.data
              : undefined;
          if (rest === undefined) return end(controller, 410, 'response-not-replayable');
          if (rest.byteLength > 0) controller.enqueue(rest);
          return controller.close();
        }
        if (log?.generation === generation) {
          if (log.offset > offset) return end(controller, 410, 'response-not-replayable');
          // A stop that named a position ends the answer there: nothing past it goes out.
          const data = beforeStop(log.data, log.offset, record.stopAt);
          if (data.byteLength > 0) {
            controller.enqueue(data);
            offset += data.byteLength;
            return;
          }
          if (record.stopAt !== undefined && log.length > offset && record.leaseExpiresAt > Date.now()) {
            // Only bytes past the stop are new: wait for the holder to settle the stopped answer.
            try {
              await store.wait(key, FOLLOW_WAIT_MS, cancelled.signal);
            } catch {
              return end(controller, 503);
            }
            if (cancelled.signal.aborted) return;
            continue;
          }
        }
        if (record.leaseExpiresAt <= Date.now()) return end(controller, 503);
      }
    },
    cancel() {
      cancelled.abort();
    },
  });
}

/** Whether a logged head or stored headers say the body is an event stream. */
export function headIsEventStream(headers: readonly (readonly [string, string])[]): boolean {
  return isEventStream(headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? null);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
