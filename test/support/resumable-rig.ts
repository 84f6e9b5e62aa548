/**
 * A rig for specs of the resumable body (src/client/stream/resumable-body.ts): scripted
 * responses (chunks, then a cut or an end), the headers each reconnect carried, the
 * events emitted and how the body settled.
 */

import type { SendEvent } from '../../src/client/events.js';
import type { ResolvedRetryPolicy } from '../../src/client/options.js';
import { resumableBody } from '../../src/client/stream/resumable-body.js';
import { REPLAYED_HEADER, STRIPE_REPLAYED_HEADER } from '../../src/core/headers.js';

export const G = 41;
const encoder = new TextEncoder();

export interface Scripted {
  readonly chunks?: readonly (string | Uint8Array)[];
  /** Break the connection after the chunks (as undici's reset does). */
  readonly cut?: boolean;
  readonly status?: number;
  readonly headers?: Record<string, string>;
  /** No body at all. */
  readonly bodiless?: boolean;
}

export const sse = (generation: number = G) => ({
  'content-type': 'text/event-stream',
  'x-idempotent-generation': String(generation),
});
export const text = (generation: number = G) => ({
  'content-type': 'text/plain',
  'x-idempotent-generation': String(generation),
});

/** A response for `script`; `cancelled()` says whether its reader let go of it. */
function scriptedResponse(script: Scripted) {
  const chunks = (script.chunks ?? []).map((c) => (typeof c === 'string' ? encoder.encode(c) : c));
  let cancelled = false;
  const body =
    script.bodiless === true
      ? null
      : new ReadableStream<Uint8Array>({
          pull(controller) {
            const next = chunks.shift();
            if (next) controller.enqueue(next);
            else if (script.cut) controller.error(new TypeError('terminated'));
            else controller.close();
          },
          cancel() {
            cancelled = true;
          },
        });
  const response = new Response(body, { status: script.status ?? 200, headers: script.headers ?? {} });
  return { response, cancelled: () => cancelled };
}

export const retryPolicy = (limit = 3, delay = 0, backoffLimit = 10_000, random = () => 0): ResolvedRetryPolicy => ({
  limit,
  delay,
  backoffLimit,
  maxRetryAfter: 0,
  statusCodes: [],
  random,
});

/** The client's default `replayedHeaders`. */
export const REPLAYED_HEADERS = [REPLAYED_HEADER, STRIPE_REPLAYED_HEADER];

/** Opens a resumable body over `first`, answering the n-th reconnect with `next[n-1]` (or a throw). */
export function rig(
  first: Scripted,
  next: readonly (Scripted | Error)[],
  options: { retry?: ResolvedRetryPolicy; signal?: AbortSignal; replayedHeaders?: readonly string[] } = {},
) {
  const firstResponse = scriptedResponse(first);
  const requests: Record<string, string>[] = [];
  const requestAt: number[] = [];
  const responses = [firstResponse];
  const events: SendEvent[] = [];
  const settled: unknown[] = [];
  const body = resumableBody(firstResponse.response, {
    requestId: 'req-body-1',
    retry: options.retry ?? retryPolicy(),
    replayedHeaders: options.replayedHeaders ?? REPLAYED_HEADERS,
    signal: options.signal,
    emit: (event) => events.push(event),
    settle: (error) => settled.push(error),
    attempts: () => requests.length + 1,
    async reconnect(headers) {
      requests.push(headers);
      requestAt.push(Date.now());
      const script = next[requests.length - 1];
      if (script === undefined) throw new Error(`no answer scripted for reconnect ${requests.length}`);
      if (script instanceof Error) throw script;
      const made = scriptedResponse(script);
      responses.push(made);
      return made.response;
    },
  });
  return { body, requests, requestAt, responses, events, settled };
}

/** Reads `body` to its end: the chunks as text, and the error it ended with. */
export async function readAll(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader();
  const chunks: string[] = [];
  const decoder = new TextDecoder();
  try {
    for (let n = 0; n < 1_000; n += 1) {
      const { done, value } = await reader.read();
      if (done) return { text: chunks.join(''), chunks, error: undefined as unknown };
      chunks.push(decoder.decode(value, { stream: true }));
    }
    throw new Error('more than 1000 chunks');
  } catch (error) {
    return { text: chunks.join(''), chunks, error };
  }
}
