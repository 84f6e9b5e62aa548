/**
 * SHA-256 over byte parts, in every runtime: WebCrypto (`crypto.subtle`) everywhere, and,
 * where `node:crypto` is at hand without an import (`process.getBuiltinModule`: Node ≥
 * 22.3, Bun, Deno), its synchronous hash instead — the same bytes, without a thread-pool
 * round trip (≈10 µs instead of tens under load); its one-shot `hash` where it has one
 * (a few µs less again: no Hash object per digest).
 */

import { concat } from '../core/bytes.js';

interface SyncHash {
  update(data: Uint8Array): SyncHash;
  digest(): Uint8Array;
}

type ProcessWithBuiltins = { getBuiltinModule?: (id: string) => unknown };

const nodeCrypto = (globalThis as { process?: ProcessWithBuiltins }).process?.getBuiltinModule?.('node:crypto') as
  | {
      createHash(algorithm: 'sha256'): SyncHash;
      hash?: (algorithm: 'sha256', data: Uint8Array, encoding: 'hex') => string;
    }
  | undefined;

/** The SHA-256 digest of `parts`, concatenated. */
export async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  if (nodeCrypto) {
    const hash = nodeCrypto.createHash('sha256');
    for (const part of parts) hash.update(part);
    return hash.digest();
  }
  return new Uint8Array(await crypto.subtle.digest('SHA-256', concat(parts)));
}

/** The SHA-256 digest of `parts`, concatenated, as lowercase hex. */
export async function sha256Hex(...parts: Uint8Array[]): Promise<string> {
  if (nodeCrypto?.hash)
    return nodeCrypto.hash('sha256', parts.length === 1 ? (parts[0] as Uint8Array) : concat(parts), 'hex');
  let hex = '';
  for (const byte of await sha256(...parts)) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
