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
  return sha256Hex(encoder.encode(`${method.toUpperCase()}\n${pathAndQuery}\n`), body);
}
