/** A stub `fetch` for client specs: answers each request from a script and records what it received, and when. */

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
