import { ulid } from 'ulid';

// ulid's default source asks the platform's crypto for one byte per character (16 calls
// per ID, ~50 µs in Node). One getRandomValues call fills 16 IDs' worth instead; each
// byte / 256 feeds `floor(x * 32)`, so every character stays uniform over the alphabet.
const pool = new Uint8Array(256);
let next = pool.length;

function pooledRandom(): number {
  if (next === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

/** Mints the ID of one user intent: a ULID (26 characters, sortable by creation time). */
export function newRequestId(): string {
  return ulid(undefined, pooledRandom);
}
