/** What the client-polling specs share: a journal of the requests a route received, and a 202. */
import { HttpResponse } from 'msw';
import { idOf } from './protocol-fake.js';

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly id: string | undefined;
  readonly prefer: string | null;
  readonly auth: string | null;
}

/** Records every request the routes below receive. */
export function journal() {
  const seen: Seen[] = [];
  const note = (request: Request) =>
    seen.push({
      method: request.method,
      path: new URL(request.url).pathname,
      id: idOf(request),
      prefer: request.headers.get('prefer'),
      auth: request.headers.get('authorization'),
    });
  return { seen, note };
}

export const accepted = (headers: Record<string, string> = {}) =>
  new HttpResponse(null, { status: 202, headers: { 'Retry-After': '0', ...headers } });

/** Milliseconds from the first request to each, to the nearest 100 (timers add 1 ms each). */
export const offsets = (times: number[]) => times.map((t) => Math.round((t - times[0]!) / 100) * 100);
