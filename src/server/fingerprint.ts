/**
 * The fingerprint of a request: lowercase hex SHA-256 over
 *
 *   UPPERCASE_METHOD "\n" path-and-query "\n" body-bytes
 *
 * computed with WebCrypto (`crypto.subtle`), so it runs in every runtime. Neither the
 * method nor a URL path contains a newline, so the framing is unambiguous.
 */
const encoder = new TextEncoder();

export async function fingerprintRequest(method: string, pathAndQuery: string, body: Uint8Array): Promise<string> {
  const head = encoder.encode(`${method.toUpperCase()}\n${pathAndQuery}\n`);
  const bytes = new Uint8Array(head.byteLength + body.byteLength);
  bytes.set(head, 0);
  bytes.set(body, head.byteLength);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
