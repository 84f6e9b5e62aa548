/**
 * The server side of the React specs: the reference server inside msw handlers
 * (`answer-once/msw`, with its fault injection) in front of a fake model that says
 * something different on every call — so a second model call would show as a different
 * answer. `mock.stats.runs` counts the model calls.
 *
 * The client gets `chatServer.fetch`, which resolves each request against the msw
 * handlers with msw's `getResponse`: happy-dom's own fetch (which `setupServer` would
 * sit behind) mangles streamed error responses, and the specs are about the hook.
 */

import { createIdempotentMock, type IdempotentMock } from 'answer-once/msw';
import { getResponse } from 'msw';
import { sleep } from './sleep.js';

/** The API on the page's own origin, as a same-origin app would call it. */
export const API = new URL('/api/', location.href).href;
const CHAT_URL = `${API}chat`;

export interface ChatAnswer {
  readonly answer: string;
}

export interface ChatQuestion {
  readonly content: string;
}

export interface ChatServer {
  readonly mock: IdempotentMock;
  /** A `fetch` served by the mock: give it to the client as its `fetch` option. */
  readonly fetch: typeof globalThis.fetch;
  /** The `X-Request-Id` of every request to the send route, in order. */
  readonly sentIds: string[];
  /**
   * Makes the model's next answers wait until the returned `release()` is called: the
   * server keeps reporting the intent as still generating.
   */
  hold(): () => void;
}

export function createChatServer({ modelMs }: { modelMs: number }): ChatServer {
  let held: Promise<void> | undefined;
  const mock = createIdempotentMock({
    url: CHAT_URL,
    retryAfterSeconds: 0,
    handler: async (request) => {
      const call = mock.stats.runs; // counted by the mock as this run started
      const { content } = (await request.json()) as ChatQuestion;
      await (held ?? sleep(modelMs));
      return Response.json({ answer: `answer #${call} to ${content}` } satisfies ChatAnswer);
    },
  });
  const sentIds: string[] = [];

  async function fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    if (request.method === 'POST' && request.url === CHAT_URL) {
      sentIds.push(request.headers.get('X-Request-Id') ?? '(none)');
    }
    // The caller's own signal: ky hands over its Request and holds it while in flight, whereas
    // the copy made here follows it only while something holds the copy.
    const signal = init?.signal ?? (input instanceof Request ? input : request).signal;
    const response = await abortable(getResponse([...mock.handlers], request), signal);
    if (response === undefined) throw new TypeError(`no handler for ${request.method} ${request.url}`);
    // msw's HttpResponse.error(): the response was lost on the way (a network error).
    if (response.type === 'error') throw new TypeError('Failed to fetch');
    return response;
  }

  const hold = () => {
    let release!: () => void;
    held = new Promise<void>((resolve) => (release = resolve));
    return () => {
      held = undefined;
      release();
    };
  };

  return { mock, fetch, sentIds, hold };
}

/** Settles with `work`, or rejects as soon as `signal` aborts (as fetch does). */
function abortable<T>(work: Promise<T>, signal: AbortSignal | null | undefined): Promise<T> {
  if (!signal) return work;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
