import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from '../../core/headers.js';
import { isValidRequestId, unquote } from '../../core/request-id.js';
import { InvalidRequestIdError, MissingRequestIdError } from '../errors.js';

/**
 * The intent's ID (PROTOCOL.md § 2): `X-Request-Id` when it is sent, else `Idempotency-Key`
 * (sf-string or bare token). An `Idempotency-Key` beside an `X-Request-Id` is not read at
 * all — agreeing, disagreeing or malformed — since a browser may add its own to a POST
 * (§ 2.5): the caller could have sent `X-Request-Id` alone, so reading only it gives
 * nobody a key they could not name anyway. Throws `MissingRequestIdError` when neither is
 * sent, `InvalidRequestIdError` when the one read is not 8–128 characters of `[A-Za-z0-9_-]`.
 */
export function readRequestId(headers: Headers): string {
  const sent = headers.get(REQUEST_ID_HEADER) ?? headers.get(IDEMPOTENCY_KEY_HEADER);
  if (sent === null) {
    throw new MissingRequestIdError(
      `answer-once: send the intent's ID in the ${REQUEST_ID_HEADER} (or ${IDEMPOTENCY_KEY_HEADER}) header.`,
    );
  }
  const id = unquote(sent);
  if (!isValidRequestId(id)) {
    throw new InvalidRequestIdError('answer-once: a request ID is 8–128 characters of A–Z, a–z, 0–9, "_" and "-".');
  }
  return id;
}
