/**
 * Finds the units of an answer-once event stream (PROTOCOL.md § 14.4) in its raw bytes,
 * so a resumable body hands its reader only whole units — the server's own bytes,
 * untouched — and always knows its position: the offset just after the last unit it
 * handed on (every byte of the answer body counts, § 14.1).
 *
 * A unit ends with a blank line (the HTML Standard's "Interpreting an event stream":
 * CR, LF or CRLF end a line; an empty line dispatches). Line ends are single bytes that
 * never occur inside a multi-byte UTF-8 sequence, so the bytes are never decoded on the
 * common path: for a chunk without CR it is a few `lastIndexOf(LF)` calls. The markers are
 * told apart here: the restart and error markers take no offsets (§ 14.1) and are
 * reported, never counted; the stop marker is part of the body. A marker's event type is
 * in its bytes literally, so a run of units without `answer-once.` in it has none; a run
 * with it is cut into units and each suspect unit parsed with `eventsource-parser`.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ERROR_EVENT, RESTART_EVENT } from '../../core/stream-events.js';
import { parsePosition, type Position } from '../../core/stream-protocol.js';

const LF = 0x0a;
const CR = 0x0d;
/** `answer-once.`: every marker's event type starts with it. */
const NEEDLE = new TextEncoder().encode('answer-once.');
/** The needle's rarest byte in chat streams, `w`, and where it sits in the needle. */
const PIVOT = NEEDLE.indexOf(0x77);

export interface EventUnitsSink {
  /** Whole units of the answer body, as they came; `offset` is the position's, just after them. */
  units(bytes: Uint8Array, offset: number): void;
  /** The restart marker: the answer starts again as `generation`; `marker` is its bytes. */
  restart(generation: number, marker: Uint8Array): void;
  /** The error marker: this reader's answer ends here (§ 14.7). */
  error(data: { code?: string; status?: number }): void;
}

function json(data: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(data);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Whether `bytes` holds `answer-once.` anywhere. */
export function hasNeedle(bytes: Uint8Array): boolean {
  for (let at = bytes.indexOf(NEEDLE[PIVOT]!, PIVOT); at !== -1; at = bytes.indexOf(NEEDLE[PIVOT]!, at + 1)) {
    const start = at - PIVOT;
    if (start + NEEDLE.length > bytes.length) return false;
    let k = 0;
    while (k < NEEDLE.length && bytes[start + k] === NEEDLE[k]) k += 1;
    if (k === NEEDLE.length) return true;
  }
  return false;
}

/** The one event a unit dispatches, parsed alone (the fields a unit holds do not depend on the ones before it). */
function eventOf(unit: Uint8Array): EventSourceMessage | undefined {
  let found: EventSourceMessage | undefined;
  const parser = createParser({ onEvent: (message) => (found = message) });
  parser.feed(new TextDecoder('utf-8').decode(unit));
  return found;
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
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
  #generation: number;
  #offset: number;
  readonly #sink: EventUnitsSink;
  /** The bytes after the last unit end: an unfinished unit. */
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  /** The line being read has a byte in it (so a line end now is not a blank line). */
  #midLine = false;
  /** The last byte was a CR: an LF now completes its CRLF, it ends no line. */
  #afterCR = false;
  /** That CR ended a unit: the LF completing it ends the unit too. */
  #crEnded = false;
  /** The held bytes are whole units, the last ended by the CR that ended the last chunk (its LF may come next). */
  #tentative = false;

  constructor(from: Position, sink: EventUnitsSink) {
    this.#generation = from.generation;
    this.#offset = from.offset;
    this.#sink = sink;
  }

  write(chunk: Uint8Array): void {
    if (chunk.byteLength === 0) return;
    if (this.#tentative) {
      this.#tentative = false;
      if (chunk[0] !== LF) {
        this.#units(this.#take());
        [this.#midLine, this.#afterCR, this.#crEnded] = [false, false, false];
      }
    }
    const end = this.#lastUnitEnd(chunk);
    if (end === 0) {
      this.#hold(chunk);
      return;
    }
    this.#hold(chunk.subarray(0, end));
    const run = this.#take();
    // The rest is copied: the reader may take the chunk's buffer as its own.
    if (end < chunk.byteLength) this.#hold(chunk.slice(end));
    this.#units(run);
  }

  /** The connection ended: an unterminated last unit is dropped, as an EventSource would. */
  end(): void {
    if (this.#tentative) this.#units(this.#take());
    this.#held = [];
    this.#heldBytes = 0;
    [this.#midLine, this.#afterCR, this.#crEnded, this.#tentative] = [false, false, false, false];
  }

  #hold(bytes: Uint8Array): void {
    this.#held.push(bytes);
    this.#heldBytes += bytes.byteLength;
  }

  /** The held bytes, as one array; none held after. */
  #take(): Uint8Array {
    const run = concat(this.#held, this.#heldBytes);
    this.#held = [];
    this.#heldBytes = 0;
    return run;
  }

  /** Whole units: passed on as they are, unless they may hold a marker. */
  #units(run: Uint8Array): void {
    if (hasNeedle(run)) this.#split(run);
    else this.#pass(run);
  }

  /**
   * The index just after the last unit end in `chunk` (0: none), the line state moved
   * past it. An LF right after an LF always ends a unit, CRs or not, so that is looked
   * for from the end with `lastIndexOf`; only the bytes after it, or a chunk without it,
   * are read byte by byte, and only when they hold a CR (or the last chunk ended with one).
   */
  #lastUnitEnd(chunk: Uint8Array): number {
    let end = 0;
    for (let at = chunk.lastIndexOf(LF); at !== -1; at = at === 0 ? -1 : chunk.lastIndexOf(LF, at - 1)) {
      if (at > 0 ? chunk[at - 1] === LF : this.#afterCR ? this.#crEnded : !this.#midLine) {
        end = at + 1;
        break;
      }
    }
    if (end > 0) [this.#midLine, this.#afterCR, this.#crEnded] = [false, false, false];
    if ((end === 0 && this.#afterCR) || chunk.indexOf(CR, end) !== -1) return this.#scan(chunk, end);
    const last = chunk[chunk.byteLength - 1];
    this.#midLine = last !== LF;
    return end;
  }

  /** `#lastUnitEnd` byte by byte from `from` (a unit end, or 0), for bytes with CRs in them. */
  #scan(chunk: Uint8Array, from: number): number {
    let end = from;
    let before = from; // the unit end before `end`
    let midLine = this.#midLine;
    let afterCR = this.#afterCR;
    let crEnded = this.#crEnded;
    for (let at = from; at < chunk.byteLength; at += 1) {
      const byte = chunk[at];
      if (byte === LF && afterCR) {
        // The LF of a CRLF: it belongs to the line end before it, unit end included.
        afterCR = false;
        if (crEnded) end = at + 1;
      } else if (byte === LF || byte === CR) {
        crEnded = !midLine;
        if (crEnded) [before, end] = [end, at + 1];
        midLine = false;
        afterCR = byte === CR;
      } else {
        midLine = true;
        afterCR = false;
      }
    }
    this.#midLine = midLine;
    this.#afterCR = afterCR;
    this.#crEnded = crEnded;
    // A unit ended by the chunk's last byte, a CR: held until the next byte says whether an LF completes it.
    if (end === chunk.byteLength && afterCR && crEnded) {
      this.#tentative = true;
      return before;
    }
    return end;
  }

  #pass(units: Uint8Array): void {
    if (units.byteLength === 0) return;
    this.#offset += units.byteLength;
    this.#sink.units(units, this.#offset);
  }

  /** A run that may hold a marker: unit by unit, the markers taken out, the rest passed in stretches. */
  #split(run: Uint8Array): void {
    let from = 0; // start of the stretch not yet passed
    let start = 0; // start of the current unit
    let midLine = false;
    let afterCR = false;
    for (let at = 0; at < run.byteLength; at += 1) {
      const byte = run[at];
      if (byte === LF && afterCR) {
        afterCR = false;
        continue;
      }
      if (byte !== LF && byte !== CR) {
        midLine = true;
        afterCR = false;
        continue;
      }
      afterCR = byte === CR;
      const ended = !midLine;
      midLine = false;
      if (!ended) continue;
      // A unit ends here (with the LF of a CRLF, when one follows).
      const end = afterCR && run[at + 1] === LF ? at + 2 : at + 1;
      if (end === at + 2) {
        at += 1;
        afterCR = false;
      }
      const unit = run.subarray(start, end);
      const message = hasNeedle(unit) ? eventOf(unit) : undefined;
      if (message?.event === RESTART_EVENT || message?.event === ERROR_EVENT) {
        this.#pass(run.subarray(from, start));
        this.#marker(message, unit);
        from = end;
      }
      start = end;
    }
    this.#pass(run.subarray(from));
  }

  #marker(message: EventSourceMessage, unit: Uint8Array): void {
    if (message.event === ERROR_EVENT) {
      const data = json(message.data);
      this.#sink.error({
        ...(typeof data.code === 'string' && { code: data.code }),
        ...(typeof data.status === 'number' && { status: data.status }),
      });
      return;
    }
    const generation = Number(json(message.data).generation);
    const next = Number.isSafeInteger(generation) && generation > 0 ? generation : parsePosition(message.id)?.generation;
    if (next === undefined) return;
    this.#generation = next;
    this.#offset = 0;
    this.#sink.restart(next, unit);
  }
}
