/**
 * `chunks` joined into one new array of `length` bytes (their total unless told): the one
 * join of byte chunks, for the client's event units, the server's logs and bodies, the
 * stores' log replies and the hash's input alike.
 */
export function concat(
  chunks: readonly Uint8Array[],
  length = chunks.reduce((total, chunk) => total + chunk.byteLength, 0),
): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
