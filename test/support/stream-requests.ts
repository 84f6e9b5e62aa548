/**
 * The requests a demo page makes for an answer's stream, as the tabs specs count them: a
 * POST to the chat route (a send, or a resume's resend) or a GET of the status route.
 */
import type { Page } from 'playwright-core';

/** A stream request some tab made: when, and the position it resumed from. */
export interface StreamRequest {
  readonly at: number;
  readonly lastEventId: string | undefined;
}

/** Records the stream requests of `page` (reloads included) into `into`. */
export function trackStreams(page: Page, into: StreamRequest[]): void {
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    const post = request.method() === 'POST' && pathname === '/api/chat';
    const status = request.method() === 'GET' && pathname.startsWith('/api/status/');
    if (post || status) into.push({ at: Date.now(), lastEventId: request.headers()['last-event-id'] });
  });
}
