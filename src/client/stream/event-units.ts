/**
 * Finds the units of an answer-once event stream (PROTOCOL.md § 14.4) in its raw bytes,
 * so a resumable body hands its reader only whole units — the server's own bytes,
 * untouched — and always knows its position: the offset just after the last unit it
 * handed on (every byte of the answer body counts, § 14.1).
 *
 * A unit ends with a blank line (the HTML Standard's "Interpreting an event stream":
 * CR, LF or CRLF end a line; an empty line dispatches). Line ends are single bytes that
 * never occur inside a multi-byte UTF-8 sequence, so the bytes are never decoded on the
 * common path: an LF right after an LF always ends a unit, CRs or not, so for a chunk
 * without CR it is a few `lastIndexOf(LF)` calls; bytes with CRs are read one by one. The markers are
 * told apart here: the restart and error markers take no offsets (§ 14.1) and are
 * reported, never counted; the stop marker is part of the body. A marker's event type is
 * in its bytes literally, so a run of units without `answer-once.` in it has none; a run
 * with it is cut into units and each suspect unit parsed with `eventsource-parser`.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ERROR_EVENT, RESTART_EVENT, restartGeneration } from '../../core/stream-events.js';

const LF = 0x0a;
const CR = 0x0d;
/** `answer-once.`: every marker's event type starts with it. */
const NEEDLE = new TextEncoder().encode('answer-once.');
/** Where the needle's rarest byte in chat streams, `w`, sits in it. */
const PIVOT = NEEDLE.indexOf(0x77);

export interface EventUnitsSink {
  /** Whole units of the answer body, as they came; `offset` is the position's, just after them. */
  units(bytes: Uint8Array, offset: number): void;
  /** The restart marker: the answer starts again as `generation`; `marker` is its bytes. */
  restart(generation: number, marker: Uint8Array): void;
  /** The error marker: this reader's answer ends here (§ 14.7). */
  error(data: { code: string | undefined; status: number | undefined }): void;
}

function json(data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The one event a unit dispatches, parsed alone (the fields a unit holds do not depend on the ones before it). */
function eventOf(unit: Uint8Array): EventSourceMessage | undefined {
  let found: EventSourceMessage | undefined;
  createParser({ onEvent: (message) => (found = message) }).feed(new TextDecoder().decode(unit));
  return found;
}

/** Whether `bytes` holds `answer-once.` anywhere. */
function hasNeedle(bytes: Uint8Array): boolean {
  for (let at = bytes.indexOf(0x77, PIVOT); at !== -1; at = bytes.indexOf(0x77, at + 1)) {
    let k = 0;
    while (k < NEEDLE.length && bytes[at - PIVOT + k] === NEEDLE[k]) k += 1;
    if (k === NEEDLE.length) return true;
  }
  return false;
}

/** Where a scan of units stands: the last byte (LF at a unit's start), and whether a CR there ended a unit. */
interface ScanState {
  prev: number | undefined;
  /** The unit the last byte (a CR) ended: it ends after the LF that may come next, or before the byte that does not. */
  pendingCR: boolean;
}

/** Calls `found` with the index just after each unit end in `bytes[from…]`. */
function scan(bytes: Uint8Array, from: number, state: ScanState, found: (end: number) => void): void {
  let prev = state.prev;
  for (let at = from; at < bytes.byteLength; at += 1) {
    const byte = bytes[at];
    if (state.pendingCR) {
      state.pendingCR = false;
      // An LF here goes on to end no unit: its `prev` is that CR.
      found(byte === LF ? at + 1 : at);
    }
    if (byte === LF) {
      if (prev === LF) found(at + 1);
    } else if (byte === CR) state.pendingCR = prev === LF || prev === CR;
    prev = byte;
  }
  state.prev = prev;
}

/** Joins chunks (the one itself when alone). */
export function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * One response's worth of units: a new connection starts a new instance (its first byte
 * is a unit boundary), carrying on from the position the last one reached.
 */
export class EventUnits {
  #offset: number;
  readonly #sink: EventUnitsSink;
  /** The bytes after the last unit end (an unfinished unit, or whole ones when a CR may still get its LF). */
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  readonly #state: ScanState = { prev: LF, pendingCR: false };

  /** `offset`: the position's, where this response's body starts. */
  constructor(offset: number, sink: EventUnitsSink) {
    this.#offset = offset;
    this.#sink = sink;
  }

  write(chunk: Uint8Array): void {
    const length = chunk.byteLength;
    const state = this.#state;
    let end = -1;
    if (state.prev !== CR) {
      for (let at = chunk.lastIndexOf(LF); at !== -1; at = at === 0 ? -1 : chunk.lastIndexOf(LF, at - 1)) {
        if ((at > 0 ? chunk[at - 1] : state.prev) === LF) {
          end = at + 1;
          break;
        }
      }
    }
    const from = Math.max(end, 0);
    if (state.prev === CR || chunk.indexOf(CR, from) !== -1) {
      if (end > 0) state.prev = LF;
      scan(chunk, from, state, (at) => (end = at));
    } else if (length > 0) state.prev = chunk[length - 1];
    if (end < 0) {
      this.#hold(chunk);
      return;
    }
    this.#hold(chunk.subarray(0, end));
    const run = concat(this.#held, this.#heldBytes);
    this.#held = [];
    this.#heldBytes = 0;
    // The rest is copied: the reader may take the chunk's buffer as its own.
    if (end < length) this.#hold(chunk.slice(end));
    this.#units(run);
  }

  /** The connection ended: an unterminated last unit is dropped, as an EventSource would. */
  end(): void {
    if (this.#state.pendingCR) this.#units(concat(this.#held, this.#heldBytes));
    this.#held = [];
    this.#heldBytes = 0;
    this.#state.prev = LF;
    this.#state.pendingCR = false;
  }

  #hold(bytes: Uint8Array): void {
    this.#held.push(bytes);
    this.#heldBytes += bytes.byteLength;
  }

  /** Whole units: passed on as they came, but a marker. */
  #units(run: Uint8Array): void {
    let from = 0; // start of the stretch not yet passed
    if (hasNeedle(run)) {
      // Unit by unit: a marker is taken out, the stretches between passed.
      let start = 0;
      const unit = (end: number) => {
        const bytes = run.subarray(start, end);
        const message = hasNeedle(bytes) ? eventOf(bytes) : undefined;
        if (message?.event === RESTART_EVENT || message?.event === ERROR_EVENT) {
          this.#pass(run.subarray(from, start));
          this.#marker(message, bytes);
          from = end;
        }
        start = end;
      };
      const state: ScanState = { prev: LF, pendingCR: false };
      scan(run, 0, state, unit);
      if (state.pendingCR) unit(run.byteLength);
    }
    this.#pass(from === 0 ? run : run.subarray(from));
  }

  #pass(units: Uint8Array): void {
    if (units.byteLength === 0) return;
    this.#offset += units.byteLength;
    this.#sink.units(units, this.#offset);
  }

  #marker(message: EventSourceMessage, unit: Uint8Array): void {
    if (message.event === ERROR_EVENT) {
      const { code, status } = json(message.data);
      this.#sink.error({
        code: typeof code === 'string' ? code : undefined,
        status: typeof status === 'number' ? status : undefined,
      });
      return;
    }
    // § 14.5: the marker's data names the generation (its id is `<G>.0`).
    const generation = restartGeneration(message.data);
    if (generation === undefined) return;
    this.#offset = 0;
    this.#sink.restart(generation, unit);
  }
}
