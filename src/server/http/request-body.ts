import { PayloadTooLargeError } from '../errors.js';
import { concat } from '../format/bytes.js';

/**
 * Reads the whole request body, refusing more than `maxBytes`: a `Content-Length` over
 * the limit is refused before reading, a stream is cancelled as soon as it crosses it.
 */
export async function readRequestBody(
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
