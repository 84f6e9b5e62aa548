import { createParser, type EventSourceParser } from 'eventsource-parser';
import { digits, eventEnd, frameEvent } from '../format/sse-frame.js';

const LF = 0x0a;
const CR = 0x0d;
const BOM = Uint8Array.of(0xef, 0xbb, 0xbf);
const encoder = new TextEncoder();
const DATA = encoder.encode('data: ');
const EVENT = encoder.encode('event: ');

/** `bytes[at…]` starts with `prefix`. */
function startsWith(bytes: Uint8Array, at: number, prefix: Uint8Array): boolean {
  for (let k = 0; k < prefix.length; k += 1) if (bytes[at + k] !== prefix[k]) return false;
  return true;
}

/**
 * Re-frames a handler's event stream as § 14.4 says — each event with the server's id
 * (its position), comments and `retry` kept, the handler's own ids dropped — handing
 * `push` whole units only, one view per write.
 *
 * Most events already are what § 14.4 writes, but for the id: an optional first line
 * `event: <type>`, then `data: ` lines, LF line ends, a blank line. Such a block is
 * copied as it came with `id: <g>.<N>` put before its blank line, found in the bytes
 * without decoding them (its lines are what `eventsource-parser` would make of them).
 * Every other block — comments, `retry`, ids, other spellings — goes through
 * `eventsource-parser` (the HTML Standard's rules) and is written anew; so does the whole
 * stream from its first CR on (CR and CRLF line ends). The one byte-order mark that may
 * open the stream is dropped here, however the chunks split it (the UTF-8 decode the HTML
 * Standard names drops it), not left to the parser; any later one is ordinary input.
 */
export class EventFramer {
  readonly #generation: number;
  readonly #push: (bytes: Uint8Array) => void;
  /** `id: <g>.` */
  readonly #idPrefix: Uint8Array;
  #offset: number;
  /** The handler's bytes since the last block end. */
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  /** The bytes of a BOM opening the stream matched so far; `undefined` once the stream's start is behind us. */
  #bomBytes: number | undefined = 0;
  /** Every byte from here on goes through the parser (a CR came). */
  #parsing = false;
  #parser: EventSourceParser | undefined;
  /** The text fed last ended with a CR, given its LF already: an LF that comes next is that one. */
  #lfGiven = false;
  /** Keeps a U+FEFF: the stream's opening BOM is dropped as bytes (`#dropBom`), any other is input. */
  #textDecoder: TextDecoder | undefined; // made on first use: the copy path never decodes
  /**
   * Where the units are written: one buffer for many writes, each write handed on as a
   * view of it (no array per event); a full one is left to its views and a larger one
   * begun (256 B doubling to 64 KiB, so a short or held answer stays small).
   */
  #arena = new Uint8Array(256);
  #used = 0;
  /** The start of what is written but not yet handed on. */
  #from = 0;

  constructor(generation: number, push: (bytes: Uint8Array) => void, offset = 0) {
    this.#generation = generation;
    this.#push = push;
    this.#offset = offset;
    this.#idPrefix = encoder.encode(`id: ${generation}.`);
  }

  /** Bytes of the answer body written so far. */
  get offset(): number {
    return this.#offset;
  }

  /** Feeds the handler's next bytes. */
  write(chunk: Uint8Array): void {
    if (this.#bomBytes !== undefined) chunk = this.#dropBom(chunk);
    if (chunk.byteLength === 0) return;
    let end = 0;
    if (!this.#parsing) {
      // Native searches, not a pass of our own: a CR anywhere, else the last blank line
      // (usually the chunk's last two bytes); `#blocks` is the one pass over the bytes.
      this.#parsing = chunk.indexOf(CR) >= 0;
      if (!this.#parsing) end = this.#lastBlockEnd(chunk);
      if (this.#parsing) {
        this.#hold(chunk);
        chunk = this.#take();
      }
    }
    if (this.#parsing) this.#parse(this.#decoder().decode(chunk, { stream: true }));
    else if (end === 0) this.#hold(chunk);
    else {
      let blocks = end === chunk.byteLength ? chunk : chunk.subarray(0, end);
      if (this.#heldBytes > 0) {
        this.#hold(blocks);
        blocks = this.#take();
      }
      if (end < chunk.byteLength) this.#hold(chunk.subarray(end));
      this.#blocks(blocks);
    }
    this.#flush();
  }

  /** The handler's body ended: an unterminated last event is dropped, as an EventSource would. */
  end(): void {
    if (this.#parsing) this.#parse(this.#decoder().decode());
    this.#held = [];
    this.#heldBytes = 0;
    this.#flush();
  }

  /** Appends one unit of the server's own (the stop marker) after the handler's events. */
  writeOwn(bytes: Uint8Array): void {
    this.#unit(bytes);
    this.#flush();
  }

  /**
   * The chunk without the stream's opening BOM, or the part of one it ends; bytes that
   * began one but do not finish it are input after all, given back before the chunk.
   */
  #dropBom(chunk: Uint8Array): Uint8Array {
    const before = this.#bomBytes ?? 0;
    let matched = before;
    while (matched < BOM.length && matched - before < chunk.byteLength && chunk[matched - before] === BOM[matched]) {
      matched += 1;
    }
    if (matched < BOM.length && matched - before === chunk.byteLength) {
      this.#bomBytes = matched; // all of it may still be a BOM
      return chunk.subarray(chunk.byteLength);
    }
    this.#bomBytes = undefined;
    if (matched === BOM.length) return chunk.subarray(matched - before);
    if (before === 0) return chunk;
    const given = new Uint8Array(before + chunk.byteLength);
    given.set(BOM.subarray(0, before));
    given.set(chunk, before);
    return given;
  }

  #decoder(): TextDecoder {
    this.#textDecoder ??= new TextDecoder('utf-8', { ignoreBOM: true });
    return this.#textDecoder;
  }

  #hold(bytes: Uint8Array): void {
    this.#held.push(bytes);
    this.#heldBytes += bytes.byteLength;
  }

  #take(): Uint8Array {
    let bytes = this.#held[0]!;
    if (this.#held.length > 1) {
      bytes = new Uint8Array(this.#heldBytes);
      let at = 0;
      for (const part of this.#held) {
        bytes.set(part, at);
        at += part.byteLength;
      }
    }
    this.#held.length = 0;
    this.#heldBytes = 0;
    return bytes;
  }

  /** Just past the chunk's last blank line (an LF after an LF, the held bytes' last counted), or 0. */
  #lastBlockEnd(chunk: Uint8Array): number {
    for (let at = chunk.lastIndexOf(LF); at >= 0; at = at > 0 ? chunk.lastIndexOf(LF, at - 1) : -1) {
      const before = at > 0 ? chunk[at - 1] : this.#heldBytes === 0 ? LF : this.#lastHeldByte();
      if (before === LF) return at + 1;
    }
    return 0;
  }

  #lastHeldByte(): number | undefined {
    const last = this.#held.at(-1);
    return last?.[last.byteLength - 1];
  }

  /** Whole blocks (LF line ends): each copied with its id, or parsed. */
  #blocks(bytes: Uint8Array): void {
    let start = 0; // the block's
    let line = 0; // the line's
    // Whether the block's lines so far are what § 14.4 writes, and one of them data.
    let plain = true;
    let data = false;
    for (let at = 0; at < bytes.byteLength; at += 1) {
      if (bytes[at] !== LF) continue;
      if (at > line) {
        if (plain) {
          if (startsWith(bytes, line, DATA)) data = true;
          else if (!(line === start && at > line + EVENT.length && startsWith(bytes, line, EVENT))) plain = false;
        }
        line = at + 1;
        continue;
      }
      // The blank line: the block ends (one that is only a blank line dispatches nothing).
      if (plain && data) this.#copy(bytes, start, line);
      else if (line > start) this.#parse(this.#decoder().decode(bytes.subarray(start, at + 1)));
      start = line = at + 1;
      plain = true;
      data = false;
    }
  }

  /** An event whose fields (`bytes[from…to]`) are as § 14.4 writes them: the fields, then its id line, then the blank line. */
  #copy(bytes: Uint8Array, from: number, to: number): void {
    const length = to - from;
    const end = eventEnd(this.#offset + length + this.#idPrefix.byteLength + 2); // + the two LFs
    this.#room(end - this.#offset);
    const arena = this.#arena;
    let at = this.#used;
    if (length > 64) arena.set(bytes.subarray(from, to), at);
    else for (let k = 0; k < length; k += 1) arena[at + k] = bytes[from + k]!;
    at += length;
    arena.set(this.#idPrefix, at);
    at += this.#idPrefix.byteLength;
    // N's digits, written from the right.
    const count = digits(end);
    for (let k = count - 1, n = end; k >= 0; k -= 1, n = (n - (n % 10)) / 10) arena[at + k] = 0x30 + (n % 10);
    at += count;
    arena[at++] = LF;
    arena[at++] = LF;
    this.#used = at;
    this.#offset = end;
  }

  #parse(text: string): void {
    if (!this.#parser) {
      this.#parser = createParser({
        onEvent: (message) => this.#unit(frameEvent(message, this.#generation, this.#offset)),
        onComment: (comment) => this.#unit(encoder.encode(`:${comment}\n\n`)),
        onRetry: (retry) => this.#unit(encoder.encode(`retry: ${retry}\n\n`)),
      });
      // The stream's BOM is gone already: a blank line (which dispatches nothing) ends the
      // parser's own check for one, so a U+FEFF it is fed stays part of its line.
      this.#parser.feed('\n');
    }
    if (this.#lfGiven && text.startsWith('\n')) text = text.slice(1);
    // A CR is a whole line end, but a parser fed it last cannot know no LF follows and
    // waits (eventsource-parser 3 does): the event it ends would wait for the handler's next
    // bytes, or be lost at the end. CR LF is the same line end, so the LF is given now (and
    // only the one LF right after it is skipped: a blank line after that is an event's end).
    this.#lfGiven = text.endsWith('\r');
    if (text === '') return;
    this.#parser.feed(this.#lfGiven ? `${text}\n` : text);
  }

  #unit(bytes: Uint8Array): void {
    this.#room(bytes.byteLength);
    this.#arena.set(bytes, this.#used);
    this.#used += bytes.byteLength;
    this.#offset += bytes.byteLength;
  }

  /** Makes room for `bytes` more in the arena (what is in the full one is handed on first). */
  #room(bytes: number): void {
    if (this.#arena.byteLength - this.#used >= bytes) return;
    this.#flush();
    this.#arena = new Uint8Array(Math.max(bytes, Math.min(this.#arena.byteLength * 2, 65_536)));
    this.#used = 0;
    this.#from = 0;
  }

  /** Hands on what was written since the last time, as one view. */
  #flush(): void {
    if (this.#used === this.#from) return;
    const bytes = this.#arena.subarray(this.#from, this.#used);
    this.#from = this.#used;
    this.#push(bytes);
  }
}
