/**
 * The fingerprint of a request: lowercase hex SHA-256 over
 *
 *   UPPERCASE_METHOD "\n" path-and-query "\n" body-bytes
 *
 * Neither the method nor a URL path contains a newline, so the framing is unambiguous.
 * `sha256` (core) computes it in every runtime, synchronously and in one shot where
 * `node:crypto` is at hand (a thread-pool round trip was the largest cost of a first run).
 */
import { sha256Hex } from '../sha256.js';

const encoder = new TextEncoder();

export async function fingerprintRequest(method: string, pathAndQuery: string, body: Uint8Array): Promise<string> {
  const prefix = `${method.toUpperCase()}\n${pathAndQuery}\n`;
  const input = framed(prefix, body);
  return input ? sha256Hex(input) : sha256Hex(encoder.encode(prefix), body);
}

/**
 * The prefix and the body in one array, written byte by byte: a parsed URL's path and
 * query are ASCII (the URL parser percent-encodes the rest), as is a method, so the prefix
 * needs no encoder and the hash's input no second copy. `undefined` for a prefix with a
 * character beyond ASCII (a Request of another implementation), which is encoded instead.
 */
function framed(prefix: string, body: Uint8Array): Uint8Array | undefined {
  const out = new Uint8Array(prefix.length + body.byteLength);
  for (let index = 0; index < prefix.length; index += 1) {
    const code = prefix.charCodeAt(index);
    if (code > 0x7f) return undefined;
    out[index] = code;
  }
  out.set(body, prefix.length);
  return out;
}
