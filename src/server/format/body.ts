import { PayloadTooLargeError } from '../errors.js';

/** Concatenates chunks into one buffer. */
export function concat(chunks: readonly Uint8Array[], length: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

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

/**
 * Reads the whole request body, refusing more than `maxBytes`: a `Content-Length` over
 * the limit is refused before reading, a stream is cancelled as soon as it crosses it.
 */
export async function readBodyLimited(
  request: Request,
  maxBytes: number,
  requestId: string,
): Promise<Uint8Array<ArrayBuffer>> {
  const tooLarge = () =>
    new PayloadTooLargeError(`answer-once: the request body is larger than ${maxBytes} bytes.`, { requestId });
  const declared = Number(request.headers.get('Content-Length') ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return concat(chunks, length);
}
