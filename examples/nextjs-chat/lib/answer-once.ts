/**
 * The recipe: ONE `createIdempotencyHandler` (../../shared/agent.ts: an agent turn through
 * `journaled`) serves the chat route (`app/api/chat`) and its status route
 * (`app/api/status/[id]`, where Stop sends its DELETE). `waitUntil: after` hands what a
 * request keeps doing after its answer — the model streaming into the store while the
 * visitor is gone, the record's write, the lease's heartbeats — to Next.js, so a closed
 * tab never ends the work on a serverless host (Vercel keeps the function alive until it
 * settles; `next start` runs it anyway). The handler runs in a producer the crash faults
 * can kill (../../shared/producers.ts): the demo's, not the recipe's.
 */
import { after } from 'next/server';
import { createDemoHandler } from '../../shared/agent';
import { crashableProducers } from '../../shared/producers';
import { demo } from './demo';
import { store } from './store';

const create = () => {
  const producers = crashableProducers(store, (producer) =>
    createDemoHandler({
      model: demo.model,
      restaurant: demo.restaurant,
      producer,
      crash: () => producers.crash(),
      faults: demo,
      onEvent: demo.savings.onEvent,
      waitUntil: after,
    }),
  );
  return producers;
};

// One per process, as the store is: routes are bundled apart.
const shared = globalThis as typeof globalThis & { answerOnceProducers?: ReturnType<typeof create> };
const producers = (shared.answerOnceProducers ??= create());

export const handle = (request: Request): Promise<Response> => producers.handle(request);
