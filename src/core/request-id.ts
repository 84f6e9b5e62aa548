/** What a request ID may look like: 8–128 characters of `[A-Za-z0-9_-]`. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;

/** True when `id` is a request ID the protocol accepts. */
export function isValidRequestId(id: string): boolean {
  return REQUEST_ID_PATTERN.test(id);
}
