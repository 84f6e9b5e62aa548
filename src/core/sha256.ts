/**
 * SHA-256 over byte parts, in every runtime: WebCrypto (`crypto.subtle`) everywhere, and,
 * where `node:crypto` is at hand without an import (`process.getBuiltinModule`: Node ≥
 * 22.3, Bun, Deno), its synchronous hash instead — the same bytes, without a thread-pool
 * round trip (≈10 µs instead of tens under load).
 */
interface SyncHash {
  update(data: Uint8Array): SyncHash;
  digest(): Uint8Array;
}

type ProcessWithBuiltins = { getBuiltinModule?: (id: string) => unknown };

const nodeCrypto = (globalThis as { process?: ProcessWithBuiltins }).process?.getBuiltinModule?.('node:crypto') as
  | { createHash(algorithm: 'sha256'): SyncHash }
  | undefined;

/** The SHA-256 digest of `parts`, concatenated. */
export async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  if (nodeCrypto) {
    const hash = nodeCrypto.createHash('sha256');
    for (const part of parts) hash.update(part);
    return hash.digest();
  }
  const bytes = new Uint8Array(parts.reduce((length, part) => length + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
}
