/** What a request ID may look like: 8–128 characters of `[A-Za-z0-9_-]`. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;

/** True when `id` is a request ID the protocol accepts. */
export function isValidRequestId(id: string): boolean {
  return REQUEST_ID_PATTERN.test(id);
}

/**
 * A structured-field string (`"abc"`) unquoted; anything else as sent (PROTOCOL.md § 2.3).
 * `Headers` has already removed the leading and trailing whitespace HTTP knows (spaces and
 * tabs); anything else around the ID (a no-break space, a form feed) leaves it invalid.
 */
export function unquote(value: string): string {
  return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
}
