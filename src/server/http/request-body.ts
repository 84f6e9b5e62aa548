import { concat } from '../../core/bytes.js';
import { PayloadTooLargeError, RequestBodyIncompleteError } from '../errors.js';

/**
 * Reads the whole request body, refusing more than `maxBytes`: a `Content-Length` over
 * the limit is refused before reading, a stream is cancelled as soon as it crosses it. A
 * body whose stream breaks before its end (the client's connection closed mid-upload) is
 * refused as incomplete, never read as the intent's body nor thrown as the server's failure.
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
  const incomplete = (cause: unknown) =>
    new RequestBodyIncompleteError(
      `answer-once: the request body broke after ${length} bytes${declared >= 0 ? ` of the ${declared} its Content-Length declared` : ''}.`,
      { cause, requestId },
    );
  for (;;) {
    const { done, value } = await reader.read().catch((error: unknown) => {
      throw incomplete(error);
    });
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

/**
 * The work's own Request: the caller's method, URL and headers over the body bytes already
 * read, with a signal of its own (`signal: null` follows none), so a client that
 * disconnects does not cancel the work whose answer it will ask for again. A copy of the
 * caller's Request parses no URL or header again; a Request of another Fetch
 * implementation (a framework's own class, as Next.js route handlers receive) cannot be
 * copied by this runtime's constructor, and is rebuilt from its parts.
 */
export function workRequestOf(request: Request, body: Uint8Array<ArrayBuffer>): Request {
  const init: RequestInit = request.body === null ? { signal: null } : { signal: null, body };
  try {
    return new Request(request, init);
  } catch {
    return new Request(request.url, { method: request.method, headers: request.headers, ...init });
  }
}
