/**
 * Whether a body can be written down as text to resend after a reload. Returns what
 * kind of body it is when it cannot (for the error message), `undefined` when it can.
 */
export function unstorableBodyKind(body: BodyInit | null | undefined): string | undefined {
  if (body == null || typeof body === 'string' || body instanceof URLSearchParams) return undefined;
  if (typeof FormData !== 'undefined' && body instanceof FormData) {
    for (const [, value] of body) if (typeof value !== 'string') return 'FormData with files';
    return undefined;
  }
  if (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream) return 'stream';
  if (typeof Blob !== 'undefined' && body instanceof Blob) return 'Blob';
  return 'binary';
}
