/**
 * The demo's API. `POST /api/chat` is ../shared/agent.ts's handler — the part to copy:
 * `createIdempotencyHandler` whose work is an agent turn (`streamText` with a `bookTable`
 * tool, through `journaled`), so each user message runs each model call and each tool call
 * once, and its answer streams through as it is stored. The status route
 * (`/api/status/<id>`, where `stop()` sends its `DELETE`) is the same handler. The rest
 * is the demo's own: `GET /api/stats` for the footer, `/api/trouble` for the switch
 * (./faults.ts and ../shared/producers.ts: what each fault does).
 */
import type { HttpBindings } from '@hono/node-server';
import { isValidRequestId } from 'answer-once';
import type { IdempotencyStore } from 'answer-once/server';
import { createDemoHandler } from '../shared/agent.js';
import { crashableProducers } from '../shared/producers.js';
import { Restaurant } from '../shared/restaurant.js';
import { savingsMeter } from '../shared/savings.js';
import type { Stats } from '../shared/stats.js';
import { isTrouble, type Trouble, troubleProblem } from '../shared/trouble.js';
import { cutAfterEvents } from './faults.js';
import type { DemoModel } from './model.js';

/** The `cut` fault lets this many events of the answer through, then drops the connection. */
const CUT_AFTER_EVENTS = 12;

export function createChatApi({ model, store }: { model: DemoModel; store: IdempotencyStore }) {
  const intents = new Set<string>();
  const restaurant = new Restaurant();
  let requests = 0;
  let cuts = 0;
  const faults: { trouble: Trouble } = { trouble: 'none' };
  // Model calls made and avoided, tokens avoided: answer-once/otel's instruments.
  const savings = savingsMeter();
  const producers = crashableProducers(store, (producer) =>
    createDemoHandler({ model, restaurant, producer, crash: () => producers.crash(), faults, onEvent: savings.onEvent }),
  );
  const chat = producers.handle;

  return async function chatApi(request: Request, env: HttpBindings): Promise<Response> {
    const { pathname } = new URL(request.url);
    if (pathname === '/api/chat' && request.method === 'POST') {
      requests += 1;
      const id = request.headers.get('X-Request-Id') ?? '';
      if (isValidRequestId(id)) intents.add(id);
      const response = await chat(request);
      // The fault hits the next answer that streams (not a replay of a finished one).
      const streaming =
        response.headers.get('content-type')?.includes('text/event-stream') &&
        !response.headers.has('X-Idempotent-Replayed');
      if (faults.trouble !== 'cut' || !streaming) return response;
      faults.trouble = 'none';
      cuts += 1;
      return cutAfterEvents(response, CUT_AFTER_EVENTS, env.incoming.socket);
    }
    if (pathname.startsWith('/api/status/')) return chat(request);
    if (pathname === '/api/stats' && request.method === 'GET') {
      const stats: Stats = {
        ...(await savings.read()),
        modelCalls: model.calls,
        intents: intents.size,
        requests,
        cuts,
        bookings: restaurant.bookings.length,
      };
      return Response.json(stats);
    }
    if (pathname === '/api/trouble' && request.method === 'GET') return Response.json({ trouble: faults.trouble });
    if (pathname === '/api/trouble' && request.method === 'PUT') {
      const body = (await request.json().catch(() => ({}))) as { trouble?: unknown };
      if (!isTrouble(body.trouble)) return troubleProblem();
      faults.trouble = body.trouble;
      return Response.json({ trouble: faults.trouble });
    }
    return Response.json({ title: `No route for ${request.method} ${pathname}.` }, { status: 404 });
  };
}
