import { isValidRequestId } from '../../core/request-id.js';
import { IdempotencyError } from '../errors.js';
import type { IdempotencyEventListener } from '../events.js';
import { problemResponse } from '../problem.js';
import { leaseOf } from '../run/lease-options.js';
import { isStreamStore } from '../store/stream-store.js';
import { protect } from './attempt.js';
import { Background, type HandleOptions, hostOf, type WaitUntil } from './background.js';
import { withCors } from './cors.js';
import { type IdempotencyHandlerOptions, normalizeHandlerOptions } from './handler-options.js';
import { parseIntent, parseRoutedIntent } from './intent.js';
import { readPosition } from './position.js';
import { RequestMeter } from './request-meter.js';
import { requestPath } from './request-path.js';
import type { HandlerSetup } from './setup.js';
import { statusRoute } from './status-route.js';
import { stopRoute } from './stop-route.js';

/** The methods that read an intent on the status route (DELETE stops it): none runs anything. */
const STATUS_METHODS = new Set(['GET', 'HEAD']);

/**
 * Makes `handler` idempotent per intent: `async function handle(request): Promise<Response>`
 * for any Fetch-API runtime. See PROTOCOL.md for every answer it gives.
 *
 * Every request outside the status route is treated as an intent, whatever its method:
 * mount it on the routes (and methods) you mean to protect. The status route serves
 * `GET`, `HEAD` and `DELETE` (the stop route) only (405 otherwise).
 *
 * With a store that keeps answer logs (`MemoryStore`, `RedisStore`; PROTOCOL.md § 14), the
 * handler's response goes to its first caller as it is produced while it is stored: a
 * streamed AI answer arrives token by token, and every other attempt attaches to it live or
 * replays it byte for byte, from where its connection broke. With a store without logs the
 * response is read to its end, stored, then sent (§ 14.11); one over `maxResponseBytes` is
 * sent as it streams and not kept for replay (§ 7.3). An error the handler throws is answered as `intent-failed` without its message; it
 * reaches `onEvent` as a `failed` event (log it there).
 *
 * `handle(request, { waitUntil })` (or Workers' `handle(request, ctx)`) hands what the
 * request keeps doing after its answer to the runtime, as the `waitUntil` option does for
 * every request.
 */
export function createIdempotencyHandler(
  given: IdempotencyHandlerOptions,
): (request: Request, call?: HandleOptions) => Promise<Response> {
  const options = normalizeHandlerOptions(given);
  const statusPrefix = `${options.statusPath}/`;
  const allow = options.cors ? 'GET, HEAD, DELETE, OPTIONS' : 'GET, HEAD, DELETE';
  // A store that keeps answer logs streams every answer through (PROTOCOL.md § 14).
  const setup: HandlerSetup = {
    options,
    streamStore: isStreamStore(options.store) ? options.store : undefined,
    lease: leaseOf(options),
  };

  // Without a listener there is nothing to meter: the router answers directly.
  const answer = options.onEvent ? metered : route;

  // Not itself async: a request without `waitUntil` is answered by the router's own promise,
  // with no promise of this function's in between.
  function handle(request: Request, call?: HandleOptions): Promise<Response> {
    let waitUntil: WaitUntil | undefined;
    try {
      waitUntil = hostOf(call, options.waitUntil);
    } catch (error) {
      return Promise.reject(error); // bad per-request options: a rejection, as from an async function
    }
    return waitUntil ? kept(request, waitUntil) : answer(request, setup);
  }

  async function kept(request: Request, waitUntil: WaitUntil): Promise<Response> {
    const background = new Background();
    // Handed before anything runs: a `waitUntil` that throws leaves nothing half-done.
    waitUntil(background.done);
    try {
      return await answer(request, { ...setup, keep: background.keep });
    } finally {
      background.close();
    }
  }

  async function metered(request: Request, setup: HandlerSetup): Promise<Response> {
    const onEvent = options.onEvent as IdempotencyEventListener; // chosen only with a listener
    const resumed = readPosition(request.headers) !== undefined;
    const send = !requestPath(request).pathname.startsWith(statusPrefix);
    const meter = new RequestMeter(onEvent, options.store, options.storeTimeoutMs, { resumed, send });
    const answered = meter.answer(await route(request, { ...setup, meter }));
    setup.keep?.(meter.reported); // its event may go out after the body ended
    return answered;
  }

  async function route(request: Request, setup: HandlerSetup): Promise<Response> {
    try {
      const path = requestPath(request);
      const { pathname } = path;
      if (pathname.startsWith(statusPrefix)) {
        const requestId = pathname.slice(statusPrefix.length);
        const stop = request.method === 'DELETE';
        if (!stop && !STATUS_METHODS.has(request.method)) return methodNotAllowed(requestId);
        const intent = await parseRoutedIntent(request, requestId, setup);
        if (intent instanceof Response) return intent;
        if (stop) return await stopRoute(setup, request, intent);
        const answer = await statusRoute(setup, request, intent);
        return request.method === 'HEAD' ? new Response(null, answer) : answer;
      }
      const intent = await parseIntent(request, path, setup);
      return intent instanceof Response ? intent : await protect(setup, request, intent);
    } catch (error) {
      if (error instanceof IdempotencyError) return error.getResponse();
      throw error;
    }
  }

  function methodNotAllowed(requestId: string): Response {
    return problemResponse('method-not-allowed', {
      title: 'answer-once: the status route answers GET and HEAD, and DELETE to stop; no other method.',
      ...(isValidRequestId(requestId) ? { requestId } : {}),
      headers: { Allow: allow },
    });
  }

  return options.cors ? withCors(handle, options.cors) : handle;
}
