import { concat } from '../../core/bytes.js';
import { isEventStream } from '../../core/stream-protocol.js';

const LF = 0x0a;
const CR = 0x0d;
const encoder = new TextEncoder();
const BOM = Uint8Array.of(0xef, 0xbb, 0xbf);
/** The two spellings of an `event` field whose value starts with the reserved prefix (one space after the colon is not part of the value). */
const RESERVED = [encoder.encode('event:answer-once.'), encoder.encode('event: answer-once.')];
/** The same, after a byte-order mark: the first line of a stream may start with one (a parser drops it). */
const RESERVED_FIRST = [...RESERVED, ...RESERVED.map((line) => Uint8Array.of(...BOM, ...line))];

/**
 * Drops every `event:` line of a handler's event stream whose type is in the `answer-once.`
 * namespace (PROTOCOL.md § 14.4): only the server writes markers. The event itself is kept,
 * as an event of the default type (`message`), and every other byte passes unchanged — a
 * line is held back only while its first bytes could still spell a reserved `event:`
 * field (at most 22 bytes), so tokens flow on at once.
 *
 * Lines end at CR, LF or CRLF, as the HTML Standard's parser reads them; a dropped line
 * takes its line end with it, so the block it was in stays one block.
 */
export class ReservedEventFilter {
  #mode: 'line-start' | 'pass' | 'drop' = 'line-start';
  /** The current line's bytes from earlier writes, while undecided. */
  #held: number[] = [];
  /** The spellings the current line still matches (a BOM may open the stream's first), and how many of its bytes matched. */
  #candidates: readonly Uint8Array[] = RESERVED_FIRST;
  #matched = 0;
  /** A dropped line ended with CR: an LF right after it belongs to it. */
  #dropLF = false;

  /** The runs of the chunk being written that pass through: one array for every write, emptied after each. */
  #parts: Uint8Array[] = [];

  /** The handler's next bytes, without reserved `event:` lines (the same view when nothing changed). */
  write(chunk: Uint8Array): Uint8Array {
    const parts = this.#parts;
    const n = chunk.byteLength;
    let from = 0; // the start of the run that passes through
    let line = 0; // where the current line's bytes in this chunk begin
    let i = 0;
    while (i < n) {
      if (this.#dropLF) {
        this.#dropLF = false;
        if (chunk[i] === LF) {
          from = line = i += 1; // nothing passed since the dropped line: no run to cut
          continue;
        }
      }
      if (this.#mode !== 'line-start') {
        const end = lineEnd(chunk, i);
        if (this.#mode === 'drop') {
          if (end < 0) return this.#joined(parts, chunk, from, from, n); // the rest of the line goes too
          this.#dropLF = chunk[end] === CR;
          from = end + 1;
        }
        if (end < 0) break;
        i = line = end + 1;
        this.#startLine();
        continue;
      }
      const byte = chunk[i] as number;
      const verdict = byte === CR || byte === LF ? 'other' : this.#match(byte);
      if (verdict === 'undecided') {
        i += 1;
        continue;
      }
      if (this.#held.length > 0) {
        if (line > from) parts.push(chunk.subarray(from, line));
        if (verdict === 'other') parts.push(Uint8Array.from(this.#held));
        from = line;
        this.#held = [];
      }
      if (verdict === 'reserved') {
        if (line > from) parts.push(chunk.subarray(from, line));
        from = i + 1;
        this.#mode = 'drop';
      } else if (byte === CR || byte === LF) {
        line = i + 1;
        this.#startLine();
      } else {
        this.#mode = 'pass';
      }
      i += 1;
    }
    if (this.#mode === 'line-start' && line < n) {
      // The line so far is undecided: hold it until its next bytes say.
      if (line > from) parts.push(chunk.subarray(from, line));
      for (let k = line; k < n; k += 1) this.#held.push(chunk[k] as number);
      from = n;
    }
    return this.#joined(parts, chunk, from, n, n);
  }

  /** The stream ended: what an unfinished line held back (never a reserved field: it did not spell one). */
  end(): Uint8Array {
    const held = Uint8Array.from(this.#held);
    this.#held = [];
    return held;
  }

  #startLine(): void {
    this.#mode = 'line-start';
    this.#candidates = RESERVED;
    this.#matched = 0;
  }

  #match(byte: number): 'reserved' | 'other' | 'undecided' {
    const at = this.#matched;
    this.#matched += 1;
    // Most lines differ at their first byte: no array for them (this runs for every line).
    let still = 0;
    for (const spelling of this.#candidates) if (spelling[at] === byte) still += 1;
    if (still === 0) return 'other';
    if (still < this.#candidates.length) this.#candidates = this.#candidates.filter((spelling) => spelling[at] === byte);
    return this.#candidates.some((spelling) => spelling.byteLength === this.#matched) ? 'reserved' : 'undecided';
  }

  #joined(parts: Uint8Array[], chunk: Uint8Array, from: number, to: number, n: number): Uint8Array {
    if (parts.length === 0 && from === 0 && to === n) return chunk;
    if (to > from) parts.push(chunk.subarray(from, to));
    let length = 0;
    for (const part of parts) length += part.byteLength;
    const joined = parts.length === 1 ? (parts[0] as Uint8Array) : concat(parts, length);
    parts.length = 0;
    return joined;
  }
}

/** The index of the first CR or LF at or after `from`, or -1. */
function lineEnd(bytes: Uint8Array, from: number): number {
  for (let at = from; at < bytes.byteLength; at += 1) if (bytes[at] === LF || bytes[at] === CR) return at;
  return -1;
}

/**
 * `response` with reserved `event:` lines dropped from its body when it is an event stream
 * (the buffered path, PROTOCOL.md § 14.11); any other response as it is.
 */
export function withoutReservedEvents(response: Response): Response {
  if (!response.body || !isEventStream(response.headers.get('content-type'))) return response;
  const filter = new ReservedEventFilter();
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        const out = filter.write(chunk);
        if (out.byteLength > 0) controller.enqueue(out);
      },
      flush(controller) {
        const rest = filter.end();
        if (rest.byteLength > 0) controller.enqueue(rest);
      },
    }),
  );
  return new Response(body, response);
}
