/**
 * `Prefer: wait=N` (RFC 7240 § 4.3): the client would like the server to hold a
 * "still running" answer up to N seconds and answer with the result if it lands.
 */

/** The header value asking to wait up to `seconds` (rounded down, at least 0). */
export function formatPreferWait(seconds: number): string {
  return `wait=${Math.max(0, Math.floor(seconds))}`;
}

/**
 * The `wait` preference in seconds, or `undefined` when absent or malformed.
 * Accepts several preferences in one header (`respond-async, wait=10`), any case,
 * optional whitespace and a quoted value, as RFC 7240 allows.
 */
export function parsePreferWait(header: string | null | undefined): number | undefined {
  if (!header) return undefined;
  for (const preference of header.split(',')) {
    const [token, ...rest] = preference.split(';')[0]!.split('=');
    if (token?.trim().toLowerCase() !== 'wait' || rest.length !== 1) continue;
    const value = rest[0]!.trim().replace(/^"(.*)"$/, '$1');
    if (!/^\d{1,9}$/.test(value)) return undefined;
    return Number(value);
  }
  return undefined;
}
