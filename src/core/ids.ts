import { ulid } from 'ulid';

// ulid's default source asks the platform's crypto for one byte per character (16 calls
// per ID, ~50 µs in Node). One getRandomValues call fills 256 IDs' worth instead (its
// fixed cost was still ~1.5 µs a send at 16 IDs per fill); each byte / 256 feeds
// `floor(x * 32)`, so every character stays uniform over the alphabet.
const POOL_SIZE = 4096;
const pool = /* @__PURE__ */ new Uint8Array(POOL_SIZE);
let next = POOL_SIZE;

function pooledRandom(): number {
  if (next === POOL_SIZE) {
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

/** Mints the ID of one user intent: a ULID (26 characters, sortable by creation time). */
export function newRequestId(): string {
  return ulid(undefined, pooledRandom);
}
