import { errorMarker } from '../../format/sse-frame.js';
import type { StreamStore } from '../../store/stream-store.js';
import { followLog } from '../log-follow.js';

/** Where the caller's body reads on from once its queue overflowed: the intent's log. */
export interface CallerLog {
  readonly store: StreamStore;
  readonly key: string;
  readonly generation: number;
  /** Where the caller's body starts in the generation's answer body (a continued answer's, § 14.12). */
  readonly offset: number;
  readonly sse: boolean;
  /** The most bytes queued for a connection that is not taking them (`maxQueuedBytes`). */
  readonly maxQueuedBytes: number;
  /** How long the body, once it follows the log, waits for a record the store lost (§ 7.2). */
  readonly leaseMs: number;
}

/** How the caller's body ends once the queue is taken: cleanly, with an error marker (SSE), or aborted. */
type Ending = { readonly ok: true } | { readonly ok: false; readonly status: number };

/**
 * The body of the attempt that runs the work (PROTOCOL.md § 14.2, § 14.10): what the work
 * produces, queued for the caller's connection as the connection takes it. The work never
 * waits for the connection. A connection that takes less than it is given (a paused
 * socket, a slow network) never holds more than `maxQueuedBytes` of the server's memory:
 * past it the queue is dropped and the body reads on from the log, from the offset the
 * connection took, as an attached reader does (§ 14.6, § 14.7) — and ends as one does,
 * with the rest, a restart, or, if it fell behind what the log keeps, the reader's 410.
 */
export class CallerBody {
  readonly stream: ReadableStream<Uint8Array>;
  readonly #log: CallerLog;
  /** Queued units: first the markers (they take no offset), then the answer body's bytes. */
  #queue: Uint8Array[] = [];
  /** How many of the queue's first units are markers. */
  #markers = 0;
  #queued = 0;
  /** Body bytes the connection took (its position in the generation). */
  #taken: number;
  #tail: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #ending: Ending | undefined;
  #closed = false;
  #wake: (() => void) | undefined;

  constructor(log: CallerLog) {
    this.#log = log;
    this.#taken = log.offset;
    this.stream = new ReadableStream<Uint8Array>(
      {
        pull: (controller) => this.#pull(controller),
        cancel: () => {
          // The client went away: the answer goes on into the log.
          this.#closed = true;
          this.#drop();
          void this.#tail?.cancel().catch(() => undefined);
        },
      },
      { highWaterMark: 0 },
    );
  }

  /** Queues a marker (the restart marker, § 14.5), before any body byte: not part of the answer body. */
  marker(bytes: Uint8Array): void {
    if (this.#enqueue(bytes)) this.#markers += 1;
  }

  /** Queues the answer body's next bytes; past `maxQueuedBytes`, the body follows the log instead. */
  push(bytes: Uint8Array): void {
    if (this.#enqueue(bytes) && this.#queued > this.#log.maxQueuedBytes) this.#follow();
  }

  /**
   * The record's write is known: once the queue is taken the body ends — cleanly, or with
   * the error marker of `status` (event streams) or aborted (other bodies). A body that
   * follows the log ends as the log says instead.
   */
  end(ending: Ending): void {
    if (this.#closed || this.#tail || this.#ending) return;
    this.#ending = ending;
    this.#wake?.();
  }

  /** Whether `bytes` were queued (not after the end, nor once the body follows the log). */
  #enqueue(bytes: Uint8Array): boolean {
    if (this.#closed || this.#tail || this.#ending) return false;
    this.#queue.push(bytes);
    this.#queued += bytes.byteLength;
    this.#wake?.();
    return true;
  }

  /** Drops the queued body bytes (a marker not yet taken stays first) and reads on from the log. */
  #follow(): void {
    const { store, key, generation, sse, leaseMs } = this.#log;
    this.#drop();
    this.#tail = followLog(store, key, { generation, offset: this.#taken }, { sse, patienceMs: leaseMs }).getReader();
  }

  #drop(): void {
    this.#queue.length = this.#markers;
    this.#queued = this.#queue.reduce((sum, unit) => sum + unit.byteLength, 0);
  }

  async #pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    // Bounded: each turn waits for a push, the end, or the log's next read.
    for (;;) {
      const unit = this.#queue.shift();
      if (unit) {
        this.#queued -= unit.byteLength;
        if (this.#markers > 0) this.#markers -= 1;
        else this.#taken += unit.byteLength;
        return controller.enqueue(unit);
      }
      if (this.#tail) {
        const next = await this.#tail.read();
        return next.done ? controller.close() : controller.enqueue(next.value);
      }
      if (this.#ending) return this.#finish(controller, this.#ending);
      await new Promise<void>((resolve) => (this.#wake = resolve));
      this.#wake = undefined;
    }
  }

  #finish(controller: ReadableStreamDefaultController<Uint8Array>, ending: Ending): void {
    this.#closed = true;
    if (!ending.ok && !this.#log.sse) {
      controller.error(new Error('answer-once: this answer broke off; resend to get it.'));
      return;
    }
    if (!ending.ok) controller.enqueue(errorMarker(ending.status));
    controller.close();
  }
}
