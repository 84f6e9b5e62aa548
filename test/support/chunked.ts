/**
 * `bytes` split at `cuts` (each taken modulo its length, duplicates dropped): how a
 * network may hand a body over, for specs that must not care where the chunks end.
 */
export function chunked(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((cut) => (bytes.length === 0 ? 0 : cut % bytes.length)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    if (cut > from) chunks.push(bytes.slice(from, cut));
    from = Math.max(from, cut);
  }
  return chunks;
}
