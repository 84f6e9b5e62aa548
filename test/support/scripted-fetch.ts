/** A stub `fetch` for client specs: answers each request from a script and records what it received, and when. */
import { type ClientOptions, createClient, type SendEvent, streaming } from 'answer-once';

/** Where a scripted client sends: never reached, `scripted` answers first. */
export const BASE = 'http://127.0.0.1:9/';

interface SeenRequest {
  readonly method: string;
  readonly url: string;
  readonly id: string | null;
  readonly contentType: string | null;
  readonly body: string;
  /** `Date.now()` when the request arrived. */
  readonly at: number;
}

/** `answer(request, n)` answers the n-th request (1-based); it may throw, as a failing network does. */
export function scripted(answer: (request: Request, n: number) => Response | Promise<Response>) {
  const seen: SeenRequest[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request && init === undefined ? input : new Request(input, init);
    const at = Date.now();
    const body = request.body ? await request.clone().text() : '';
    seen.push({
      method: request.method,
      url: request.url,
      id: request.headers.get('x-request-id'),
      contentType: request.headers.get('content-type'),
      body,
      at,
    });
    return answer(request, seen.length);
  };
  return { seen, fetch: fetch as typeof globalThis.fetch };
}

const encoder = new TextEncoder();

/** A body that never ends on its own: `cancelled()` says whether the client let go of it. */
export function watchedBody(text: string) {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => controller.enqueue(encoder.encode(text)),
    cancel: () => {
      cancelled = true;
    },
  });
  return { body, cancelled: () => cancelled };
}

/** A body whose connection breaks after `text`: reading it fails as undici's does. */
export function cutBody(text: string) {
  return new ReadableStream<Uint8Array>({
    start: (controller) => {
      controller.enqueue(encoder.encode(text));
      controller.error(new TypeError('terminated'));
    },
  });
}

/** A network that fails: what undici's fetch rejects with when the connection is refused. */
export const refused = () => Promise.reject(new TypeError('fetch failed'));

/** A client over `scripted(answer)` with no retry delay, recording its events (`settled()`: the settled ones). */
export function scriptedClient(answer: Parameters<typeof scripted>[0], options: ClientOptions = {}) {
  const server = scripted(answer);
  const events: SendEvent[] = [];
  const client = createClient({
    streaming,
    baseUrl: BASE,
    fetch: server.fetch,
    retry: { delay: 0 },
    onEvent: (event) => events.push(event),
    ...options,
  });
  const settled = () => events.filter((event) => event.type === 'settled');
  return { server, client, events, settled };
}
