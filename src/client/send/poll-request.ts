/**
 * The status poll of an intent: a GET to its status URL carrying the same ID and
 * `Prefer: wait=N`. Same-origin polls keep the original request's headers (the status
 * route is scoped by the app's own auth). A `Location` on another origin is refused
 * before this point; only a `statusUrl` the app configured can be cross-origin, and it
 * gets only the ID, so the client's and the send's headers never leave the origin (ky
 * hooks still run on it: polls are retries of the call).
 */
import { PREFER_HEADER } from '../../core/headers.js';
import { formatPreferWait } from '../../core/prefer.js';

const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding'];

export function pollRequest(url: URL, sent: Request, ids: Record<string, string>, waitSeconds: number): Request {
  const sameOrigin = url.origin === new URL(sent.url).origin;
  const headers = new Headers(sameOrigin ? sent.headers : undefined);
  for (const name of BODY_HEADERS) headers.delete(name);
  for (const [name, value] of Object.entries(ids)) headers.set(name, value);
  if (waitSeconds > 0) headers.set(PREFER_HEADER, formatPreferWait(waitSeconds));
  return new Request(url, {
    method: 'GET',
    headers,
    credentials: sent.credentials,
    mode: sent.mode,
  });
}
