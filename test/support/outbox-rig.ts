/**
 * What the outbox specs stand on: the reference handler in-process (no socket) as the
 * client's `fetch`, counting model calls and the IDs they ran for, in order; a network
 * switch per page (`online`, `onOnline`) that a spec flips; pages that share one
 * IndexedDB (fake-indexeddb) as the tabs of one origin do, each with its client.
 */
import 'fake-indexeddb/auto';
import { createClient, memoryStorageAdapter, type SendEvent, streaming } from 'answer-once';
import { indexedDbOutbox, type OutboxNetwork } from 'answer-once/outbox';
import { createIdempotencyHandler } from 'answer-once/server';
import { sleep } from './sleep.js';

/** The chat route in-process: answers `to <content>`; `down()` makes every request fail as a lost network does. */
export function chatRoute() {
  const ran: string[] = [];
  let reachable = true;
  const requests: string[] = [];
  const handle = createIdempotencyHandler({
    scope: () => ({ user: 'u' }),
    handler: async (request, context) => {
      ran.push(context.requestId);
      const { content } = (await request.json()) as { content: string };
      return Response.json({ answer: `to ${content}` });
    },
  });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    requests.push(request.headers.get('x-request-id') ?? '');
    if (!reachable) throw new TypeError('Failed to fetch');
    return handle(request);
  };
  return {
    fetch: fetch as typeof globalThis.fetch,
    /** The request IDs the model ran for, in the order it ran. */
    ran,
    /** The request IDs of every request that left the page, reached or not. */
    requests,
    reachable(value: boolean) {
      reachable = value;
    },
  };
}

/** A page's view of the network: `set(true)` is the browser's `online` event. */
export function networkSwitch(online: boolean): OutboxNetwork & { set(value: boolean): void } {
  const listeners = new Set<() => void>();
  return {
    online: () => online,
    onOnline(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(value) {
      online = value;
      if (value) for (const listener of listeners) listener();
    },
  };
}

let databases = 0;
/** A database name no other spec uses. */
export const freshDatabase = () => `outbox-spec-${++databases}-${Date.now()}`;

export const URL_ = 'https://chat.test/chat';

/** Waits (bounded) until `check` holds. */
export async function until(check: () => boolean, what: string, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** One page: its client over `route`, the origin's outbox database `name`, its own network switch. */
export function page(route: ReturnType<typeof chatRoute>, name: string, online: boolean) {
  const network = networkSwitch(online);
  const events: SendEvent[] = [];
  const outbox = indexedDbOutbox({ name, network });
  const client = createClient({
    streaming,
    fetch: route.fetch,
    outbox,
    storage: memoryStorageAdapter(),
    retry: { limit: 2, delay: 1 },
    onEvent: (event) => events.push(event),
  });
  return { client, network, outbox, events };
}

/** The body of one chat message. */
export const ask = (content: string) => ({ json: { content } });
