/**
 * Finds the units of an answer-once event stream (PROTOCOL.md § 14.4) in its raw bytes,
 * so a resumable body hands its reader only whole units — the server's own bytes,
 * untouched — and always knows its position: the offset just after the last unit it
 * handed on (every byte of the answer body counts, § 14.1).
 *
 * A unit ends with a blank line (the HTML Standard's "Interpreting an event stream":
 * CR, LF or CR LF end a line; an empty line dispatches). Line ends are single bytes that
 * never occur inside a multi-byte UTF-8 sequence, so the bytes are never decoded on the
 * common path: an LF right after an LF always ends a unit, CRs or not, so for a chunk
 * without CR it is a few `lastIndexOf(LF)` calls; bytes with CRs are read one by one. The
 * markers (./unit-fields.ts) are told apart here: the restart and error markers take no
 * offsets (§ 14.1) and are reported, never counted; the stop marker is part of the body.
 * A marker's event type is in its bytes literally, so a run of units without
 * `answer-once.` in it has none; a run with it is cut into units and each suspect unit parsed.
 *
 * A resumed body is checked before any of it is handed on (§ 14.5): the first unit with
 * a position id says where the body starts. From the position asked for, it is handed
 * on; from earlier in the same generation (a proxy that dropped `Last-Event-ID`), what
 * the reader already has is skipped; a newer generation from its start without a marker
 * is a restart (a restart marker is handed on for it); anything else is reported as
 * misplaced: it cannot be joined to what the reader has without a byte twice or missing.
 */
import { concat } from '../../core/bytes.js';
import { type Marker, markerOf, positionOf, restartMarker, type UnitPosition } from './unit-fields.js';

const LF = 0x0a;
const CR = 0x0d;
/** `answer-once.`: every marker's event type starts with it. */
const NEEDLE = /* @__PURE__ */ new TextEncoder().encode('answer-once.');
/** Where the needle's rarest byte in chat streams, `w`, sits in it. */
const PIVOT = /* @__PURE__ */ NEEDLE.indexOf(0x77);

export interface EventUnitsSink {
  /** Whole units of the answer body, as they came; `offset` is the position's, just after them. */
  units(bytes: Uint8Array, offset: number): void;
  /** The restart marker: the answer starts again as `generation`; `marker` is its bytes. */
  restart(generation: number, marker: Uint8Array): void;
  /** The error marker: this reader's answer ends here (§ 14.7). */
  error(data: { code: string | undefined; status: number | undefined }): void;
}

/** What a resumed body is checked against. */
export interface ResumedFrom {
  /** The generation asked for (the body must start at the offset given with it). */
  readonly generation: number;
  /** Called when the body starts at `start`, not at `asked`, and cannot be joined to what the reader has; throws. */
  readonly misplaced: (asked: UnitPosition, start: UnitPosition) => never;
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

/** Joins chunks (the one itself when alone: no copy). */
export function join(chunks: readonly Uint8Array[], size: number): Uint8Array {
  return chunks.length === 1 ? chunks[0]! : concat(chunks, size);
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
  /** While a resumed body is not yet placed: the generation it must be of (it must start at `#offset`). */
  #check: number | undefined;
  readonly #misplaced: ResumedFrom['misplaced'] | undefined;
  /** Whole units of a resumed body not yet placed, held back. */
  #unchecked: Uint8Array[] = [];
  #uncheckedBytes = 0;
  /** Bytes still to drop: the reader has them already (a resumed body that started earlier). */
  #skip = 0;

  /**
   * `offset`: the position's, where this response's body starts; `resumed`: what a
   * resumed body was asked for (it is checked to start there), or `undefined` for a body
   * read from its start.
   */
  constructor(offset: number, sink: EventUnitsSink, resumed?: ResumedFrom) {
    this.#offset = offset;
    this.#sink = sink;
    this.#check = resumed?.generation;
    this.#misplaced = resumed?.misplaced;
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
    const run = join(this.#held, this.#heldBytes);
    this.#held = [];
    this.#heldBytes = 0;
    // The rest is copied: the reader may take the chunk's buffer as its own.
    if (end < length) this.#hold(chunk.slice(end));
    this.#units(run);
  }

  /** The connection ended: an unterminated last unit is dropped, as an EventSource would. */
  end(): void {
    if (this.#state.pendingCR) this.#units(join(this.#held, this.#heldBytes));
    this.#held = [];
    this.#heldBytes = 0;
    this.#state.prev = LF;
    this.#state.pendingCR = false;
    // A resumed body with no position in it (comments only): nothing to place it by.
    this.#release();
  }

  #hold(bytes: Uint8Array): void {
    this.#held.push(bytes);
    this.#heldBytes += bytes.byteLength;
  }

  /** Whole units: passed on as they came, but a marker; a resumed body's held until placed. */
  #units(run: Uint8Array): void {
    let from = 0; // start of the stretch not yet passed
    if (this.#check !== undefined || hasNeedle(run)) {
      // Unit by unit: a marker is taken out, the first position placed, the stretches between passed.
      let start = 0;
      const unit = (end: number) => {
        const bytes = run.subarray(start, end);
        const marker = hasNeedle(bytes) ? markerOf(bytes) : undefined;
        if (marker) {
          this.#pass(run.subarray(from, start));
          this.#marker(marker, bytes);
          from = end;
        } else if (this.#check !== undefined) {
          const position = positionOf(bytes);
          if (position) {
            this.#pass(run.subarray(from, end));
            from = end;
            this.#place(this.#check, position);
          }
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
    if (this.#check !== undefined) {
      this.#unchecked.push(units);
      this.#uncheckedBytes += units.byteLength;
      return;
    }
    let bytes = units;
    if (this.#skip > 0) {
      const dropped = Math.min(this.#skip, bytes.byteLength);
      this.#skip -= dropped;
      bytes = bytes.subarray(dropped);
      if (bytes.byteLength === 0) return;
    }
    this.#offset += bytes.byteLength;
    this.#sink.units(bytes, this.#offset);
  }

  /**
   * The connection broke: a resumed body that showed no position yet (units without an
   * id) goes on as it came; the unfinished unit is dropped with this instance.
   */
  broke(): void {
    this.#release();
  }

  /** Ends the check unplaced: what was held goes on as it came. */
  #release(): void {
    this.#check = undefined;
    const held = join(this.#unchecked, this.#uncheckedBytes);
    this.#unchecked = [];
    this.#uncheckedBytes = 0;
    this.#pass(held);
  }

  /** A resumed body's first position `at` (the end of the held units): where the body started, and what follows from it. */
  #place(generation: number, at: UnitPosition): void {
    const start = at.offset - this.#uncheckedBytes;
    if (at.generation === generation && start >= 0 && start <= this.#offset) {
      // From where it was asked, or from earlier (the reader has the bytes before `#offset`).
      this.#skip = this.#offset - start;
    } else if (at.generation > generation && start === 0) {
      // A newer generation from its start, without the marker that says so.
      this.#offset = 0;
      this.#sink.restart(at.generation, restartMarker(at.generation));
    } else {
      this.#misplaced!({ generation, offset: this.#offset }, { generation: at.generation, offset: start });
    }
    this.#release();
  }

  #marker(marker: Marker, unit: Uint8Array): void {
    if (marker.kind === 'error') {
      this.#sink.error({ code: marker.code, status: marker.status });
      return;
    }
    // § 14.5: the answer starts again as the marker's generation; a resumed body is placed after it.
    const checking = this.#check !== undefined;
    if (checking) this.#release();
    this.#offset = 0;
    this.#skip = 0;
    this.#sink.restart(marker.generation, unit);
    if (checking) this.#check = marker.generation;
  }
}
