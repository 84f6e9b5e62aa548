/**
 * The fingerprint of a request: lowercase hex SHA-256 over
 *
 *   UPPERCASE_METHOD "\n" path-and-query "\n" body-bytes
 *
 * Neither the method nor a URL path contains a newline, so the framing is unambiguous.
 * `sha256` (core) computes it in every runtime, synchronously where `node:crypto` is at
 * hand (a thread-pool round trip was the largest cost of a first run).
 */
import { sha256 } from '../../core/sha256.js';

const encoder = new TextEncoder();

export async function fingerprintRequest(method: string, pathAndQuery: string, body: Uint8Array): Promise<string> {
  const digest = await sha256(encoder.encode(`${method.toUpperCase()}\n${pathAndQuery}\n`), body);
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
