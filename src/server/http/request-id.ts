import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from '../../core/headers.js';
import { isValidRequestId, unquote } from '../../core/request-id.js';
import { InvalidRequestIdError, MissingRequestIdError } from '../errors.js';

/**
 * The intent's ID from `X-Request-Id` or `Idempotency-Key` (sf-string or bare token).
 * Throws `MissingRequestIdError` when neither is sent, `InvalidRequestIdError` when the
 * value is not 8–128 characters of `[A-Za-z0-9_-]` or the two headers disagree.
 */
export function readRequestId(headers: Headers): string {
  const sent = headers.get(REQUEST_ID_HEADER) ?? headers.get(IDEMPOTENCY_KEY_HEADER);
  if (sent === null) {
    throw new MissingRequestIdError(
      `answer-once: send the intent's ID in the ${REQUEST_ID_HEADER} (or ${IDEMPOTENCY_KEY_HEADER}) header.`,
    );
  }
  const id = unquote(sent);
  const key = headers.get(IDEMPOTENCY_KEY_HEADER);
  if (key !== null && unquote(key) !== id) {
    throw new InvalidRequestIdError(
      `answer-once: ${REQUEST_ID_HEADER} and ${IDEMPOTENCY_KEY_HEADER} name different intents.`,
    );
  }
  if (!isValidRequestId(id)) {
    throw new InvalidRequestIdError('answer-once: a request ID is 8–128 characters of A–Z, a–z, 0–9, "_" and "-".');
  }
  return id;
}
