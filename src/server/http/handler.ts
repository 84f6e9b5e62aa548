import { isValidRequestId } from '../../core/request-id.js';
import { protect } from './attempt.js';
import { withCors } from './cors.js';
import { IdempotencyError } from '../errors.js';
import { type IdempotencyHandlerOptions, normalizeHandlerOptions } from './handler-options.js';
import { appliedWaitMs, type HandlerSetup, parseIntent, scopeOf, subjectOf } from './intent.js';
import { readPosition } from './position.js';
import { RequestMeter } from './request-meter.js';
import { encodeKey } from '../store/key.js';
import { problemResponse } from '../problem.js';
import { statusRoute } from './status-route.js';
import { stopAnswer } from './stop-route.js';
import { isStreamStore } from '../store/stream-store.js';

/** The methods the status route serves besides DELETE (the stop route): it never runs anything. */
const STATUS_METHODS = new Set(['GET', 'HEAD']);

/**
 * Makes `handler` idempotent per intent: `async function handle(request): Promise<Response>`
 * for any Fetch-API runtime. See PROTOCOL.md for every answer it gives.
 *
 * Every request outside the status route is treated as an intent, whatever its method:
 * mount it on the routes (and methods) you mean to protect. The status route serves
 * `GET`, `HEAD` and `DELETE` (the stop route) only (405 otherwise).
 *
 * The handler's response is read to its end before it is stored, so a streamed AI answer
 * reaches its first caller only once complete — the price of replaying it byte for byte.
 * An error the handler throws is answered as `intent-failed` without its message; it
 * reaches `onEvent` as a `failed` event (log it there).
 */
export function createIdempotencyHandler(given: IdempotencyHandlerOptions): (request: Request) => Promise<Response> {
  const options = normalizeHandlerOptions(given);
  const statusPrefix = `${options.statusPath}/`;
  const allow = options.cors ? 'GET, HEAD, DELETE, OPTIONS' : 'GET, HEAD, DELETE';
  // A store that keeps answer logs streams every answer through (PROTOCOL.md § 14).
  const setup: HandlerSetup = { options, streams: isStreamStore(options.store) ? options.store : undefined };

  async function handle(request: Request): Promise<Response> {
    const { onEvent } = options;
    if (!onEvent) return route(request, setup);
    const resumed = readPosition(request.headers) !== undefined;
    const meter = new RequestMeter(onEvent, options.store, options.storeTimeoutMs, resumed);
    return meter.answer(await route(request, { ...setup, meter }));
  }

  async function route(request: Request, setup: HandlerSetup): Promise<Response> {
    try {
      const { pathname } = new URL(request.url);
      if (pathname.startsWith(statusPrefix)) {
        const requestId = pathname.slice(statusPrefix.length);
        if (STATUS_METHODS.has(request.method)) {
          const answer = await statusRoute(setup, request, requestId);
          return request.method === 'HEAD' ? new Response(null, answer) : answer;
        }
        if (request.method !== 'DELETE') return methodNotAllowed(requestId);
        const scope = await scopeOf(request, requestId, options);
        if (scope instanceof Response) return scope;
        const key = encodeKey(scope, requestId, options.keyPrefix);
        const { report, context } = subjectOf(requestId, scope, options);
        return await stopAnswer(
          setup.streams,
          key,
          request,
          { requestId, waitMs: appliedWaitMs(request, options) },
          { ...options, report, context },
        );
      }
      const intent = await parseIntent(request, setup);
      return intent instanceof Response ? intent : await protect(setup, intent);
    } catch (error) {
      if (error instanceof IdempotencyError) return error.getResponse();
      throw error;
    }
  }

  function methodNotAllowed(requestId: string): Response {
    return problemResponse('method-not-allowed', {
      status: 405,
      title: 'answer-once: the status route is read-only; send GET or HEAD (or DELETE to stop).',
      ...(isValidRequestId(requestId) ? { requestId } : {}),
      headers: { Allow: allow },
    });
  }

  return options.cors ? withCors(handle, options.cors) : handle;
}
