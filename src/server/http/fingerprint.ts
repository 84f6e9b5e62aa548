/**
 * The fingerprint of a request: lowercase hex SHA-256 over
 *
 *   UPPERCASE_METHOD "\n" path-and-query "\n" body-bytes
 *
 * Neither the method nor a URL path contains a newline, so the framing is unambiguous.
 * WebCrypto (`crypto.subtle`) computes it in every runtime; where `node:crypto` is at
 * hand without an import (`process.getBuiltinModule`: Node ≥ 22.3, Bun, Deno) its
 * synchronous hash is used instead — the same bytes, without a thread-pool round trip
 * (it was the largest cost of a first run).
 */
const encoder = new TextEncoder();

interface SyncHash {
  update(data: Uint8Array): SyncHash;
  digest(encoding: 'hex'): string;
}

type ProcessWithBuiltins = { getBuiltinModule?: (id: string) => unknown };

const nodeCrypto = (globalThis as { process?: ProcessWithBuiltins }).process?.getBuiltinModule?.('node:crypto') as
  | { createHash(algorithm: 'sha256'): SyncHash }
  | undefined;

function toHex(digest: ArrayBuffer): string {
  let hex = '';
  for (const byte of new Uint8Array(digest)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

export async function fingerprintRequest(method: string, pathAndQuery: string, body: Uint8Array): Promise<string> {
  const head = encoder.encode(`${method.toUpperCase()}\n${pathAndQuery}\n`);
  if (nodeCrypto) return nodeCrypto.createHash('sha256').update(head).update(body).digest('hex');
  const bytes = new Uint8Array(head.byteLength + body.byteLength);
  bytes.set(head, 0);
  bytes.set(body, head.byteLength);
  return toHex(await crypto.subtle.digest('SHA-256', bytes));
}
