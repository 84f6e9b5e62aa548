/**
 * The two ways an app can mount the reference handler for Stop, in-process (the client's
 * `fetch` is the app): with the status route answering `DELETE` (`withDelete: true`), or
 * as a Next.js route file exporting `POST` and `GET` only — every `DELETE` answered 405
 * with `Allow`, as Next.js answers a method the route does not export. `stats` counts what
 * a user pays for: model calls, the stops the work was told of (its `signal` aborted), and
 * what the model wrote (occurrences of `unit` in the bytes the work produced), and the runs
 * that ended.
 */
import { createIdempotencyHandler, type IdempotentRouteHandler } from 'answer-once/server';
import { tokenResponse } from './token-stream.js';

interface StopRouteStats {
  modelCalls: number;
  /** Runs whose `signal` aborted: the stop reached the model. */
  stopsSeen: number;
  /** `DELETE` requests the app received, answered or not. */
  deletes: number;
  /** Runs whose answer ended (to its last word, or stopped). */
  runsEnded: number;
  /** How many `unit`s the model wrote, over every run. */
  written(): number;
}

export function stopRoutes(work: IdempotentRouteHandler, { withDelete, unit }: { withDelete: boolean; unit: string }) {
  let produced = '';
  const stats: StopRouteStats = {
    modelCalls: 0,
    stopsSeen: 0,
    deletes: 0,
    runsEnded: 0,
    written: () => produced.split(unit).length - 1,
  };
  const handle = createIdempotencyHandler({
    scope: () => ({ user: 'u' }),
    flushMs: 5,
    handler: async (request, context) => {
      stats.modelCalls += 1;
      context.signal.addEventListener('abort', () => (stats.stopsSeen += 1));
      const response = await work(request, context);
      const decoder = new TextDecoder();
      const source = response.body?.getReader();
      let over = false;
      const ended = () => {
        if (!over) stats.runsEnded += 1;
        over = true;
      };
      const body =
        source &&
        new ReadableStream<Uint8Array>({
          async pull(controller) {
            try {
              const { done, value } = await source.read();
              if (done) {
                ended();
                return controller.close();
              }
              produced += decoder.decode(value, { stream: true });
              controller.enqueue(value);
            } catch (error) {
              ended();
              controller.error(error);
            }
          },
          cancel(reason) {
            ended();
            return source.cancel(reason);
          },
        });
      return new Response(body ?? null, { status: response.status, headers: response.headers });
    },
  });
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.method !== 'DELETE') return handle(request);
    stats.deletes += 1;
    if (withDelete) return handle(request);
    return Promise.resolve(new Response(null, { status: 405, headers: { Allow: 'GET, HEAD, OPTIONS, POST' } }));
  };
  return { stats, fetch: fetch as typeof globalThis.fetch };
}

/** {@link stopRoutes} over a model that streams `tokens` as `data:` events, one every `delayMs`. */
export const tokenStopRoutes = (tokens: readonly string[], delayMs: number, withDelete: boolean) =>
  stopRoutes(
    async (request, { signal }) => {
      await request.text();
      return tokenResponse(tokens, { delayMs, signal });
    },
    { withDelete, unit: 'data: ' },
  );
