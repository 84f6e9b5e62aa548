import { concat } from '../../core/bytes.js';

/**
 * Bytes in order, to be joined once: a chunk that continues the last one in the same
 * buffer (the event framer's views) extends it, so joining copies a few runs, not one
 * piece per event.
 */
export class ByteRuns {
  #runs: Uint8Array[] = [];
  #bytes = 0;
  /** The run being extended: a range of one buffer, made a view only when it ends. */
  #buffer: ArrayBufferLike | undefined;
  #start = 0;
  #end = 0;

  get byteLength(): number {
    return this.#bytes;
  }

  push(chunk: Uint8Array): void {
    this.#bytes += chunk.byteLength;
    if (chunk.buffer === this.#buffer && chunk.byteOffset === this.#end) {
      this.#end += chunk.byteLength;
      return;
    }
    this.#close();
    this.#buffer = chunk.buffer;
    this.#start = chunk.byteOffset;
    this.#end = chunk.byteOffset + chunk.byteLength;
  }

  /** The bytes as one array. */
  join(): Uint8Array<ArrayBuffer> {
    this.#close();
    return concat(this.#runs, this.#bytes);
  }

  #close(): void {
    if (this.#buffer === undefined) return;
    this.#runs.push(new Uint8Array(this.#buffer, this.#start, this.#end - this.#start));
    this.#buffer = undefined;
  }
}
