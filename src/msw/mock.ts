import { http, HttpResponse, type HttpHandler } from 'msw';
import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, RETRY_AFTER_HEADER } from '../core/headers.js';
import {
  createIdempotencyHandler,
  type IdempotencyHandlerOptions,
  type IdempotencyStore,
  MemoryStore,
  type ScopeResolver,
} from '../server/index.js';
import { unquote } from '../server/request-id.js';
import { crashingWorker } from './crash.js';
import { assertFault, type Fault, type FaultContext, type FaultDecider } from './faults.js';

/** Options of {@link createIdempotentMock}: the server's, plus where to mount it and its faults. */
export interface IdempotentMockOptions extends Omit<IdempotencyHandlerOptions, 'scope' | 'store'> {
  /** The absolute URL of the idempotent route, e.g. `https://api.test/api/chat`. Required. */
  url: string;
  /**
   * Who is asking. Tests of one user's UI rarely care.
   * @default () => ({ user: 'test-user' })
   */
  scope?: ScopeResolver;
  /**
   * The store the in-process server keeps intents in; read it to assert what was stored.
   * @default new MemoryStore()
   */
  store?: IdempotencyStore;
  /**
   * Decides a fault per request (after the ones queued with `inject`); use a seeded
   * random source for chaos runs.
   * @default undefined (no faults)
   */
  faults?: FaultDecider;
}

/** What the mock has seen, for assertions. */
export interface IdempotentMockStats {
  /** Requests that reached the mock (route and status route). */
  requests: number;
  /** Times the app's handler started (model calls). */
  runs: number;
  /** Faults applied, by type. */
  faults: Record<Fault['type'], number>;
}

export interface IdempotentMock {
  /** The msw handlers: `setupServer(...mock.handlers)` or `server.use(...mock.handlers)`. */
  readonly handlers: readonly HttpHandler[];
  /** The store behind the in-process server. */
  readonly store: IdempotencyStore;
  /** The in-process server's own `handle`, without faults. */
  readonly handle: (request: Request) => Promise<Response>;
  /** Live counters. */
  readonly stats: Readonly<IdempotentMockStats>;
  /** Queues one-shot faults for the next requests, in order (before `faults` decides). */
  inject(...faults: Fault[]): void;
}

function requestIdOf(request: Request, statusPrefix: string): { requestId: string | undefined; statusRoute: boolean } {
  const { pathname } = new URL(request.url);
  if (request.method === 'GET' && pathname.startsWith(statusPrefix)) {
    return { requestId: pathname.slice(statusPrefix.length), statusRoute: true };
  }
  const raw = request.headers.get(REQUEST_ID_HEADER) ?? request.headers.get(IDEMPOTENCY_KEY_HEADER) ?? undefined;
  return { requestId: raw === undefined ? undefined : unquote(raw), statusRoute: false };
}

interface ResolvedMockOptions {
  readonly url: string;
  readonly statusPath: string;
  readonly statusUrl: string;
  readonly store: IdempotencyStore;
  readonly scope: ScopeResolver;
  readonly decide: FaultDecider | undefined;
  /** The server's options, passed on to `createIdempotencyHandler` (which validates them). */
  readonly server: Omit<IdempotencyHandlerOptions, 'scope' | 'store' | 'statusPath'>;
}

export function normalizeIdempotentMockOptions(options: IdempotentMockOptions): ResolvedMockOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('answer-once/msw: createIdempotentMock() needs an options object.');
  }
  const { url, faults: decide, store = new MemoryStore(), scope = () => ({ user: 'test-user' }), ...server } = options;
  if (typeof url !== 'string' || !URL.canParse(url)) {
    throw new TypeError('answer-once/msw: `url` must be the absolute URL of the idempotent route.');
  }
  // The mock wraps `handler` to count runs, so the server's own check never sees it: check it here.
  if (typeof server.handler !== 'function') {
    throw new TypeError('answer-once/msw: `handler` must be a function (request, context) => Response.');
  }
  if (decide !== undefined && typeof decide !== 'function') {
    throw new TypeError('answer-once/msw: `faults` must be a function (request, context) => Fault | undefined.');
  }
  const { statusPath = '/api/status', ...rest } = server;
  return { url, statusPath, statusUrl: new URL(statusPath, url).href, store, scope, decide, server: rest };
}

/**
 * Runs the reference server (`createIdempotencyHandler`) inside msw, so an app's UI
 * tests talk to a server that speaks the whole protocol — and can be told, per request,
 * to lose a response after the work ran, fail before it, delay, or crash mid-work.
 */
export function createIdempotentMock(options: IdempotentMockOptions): IdempotentMock {
  const { url, statusPath, statusUrl, store, scope, decide, server } = normalizeIdempotentMockOptions(options);
  const statusPrefix = `${new URL(statusUrl).pathname}/`;
  const stats: IdempotentMockStats = {
    requests: 0,
    runs: 0,
    faults: { 'lose-response': 0, 'fail-before': 0, delay: 0, crash: 0 },
  };
  const handler: IdempotencyHandlerOptions['handler'] = (request, context) => {
    stats.runs += 1;
    return server.handler(request, context);
  };
  const handle = createIdempotencyHandler({ ...server, statusPath, scope, store, handler });
  const queued: Fault[] = [];
  const seen = new Map<string, number>();

  async function resolve({ request }: { request: Request }): Promise<Response> {
    stats.requests += 1;
    const { requestId, statusRoute } = requestIdOf(request, statusPrefix);
    const nth = (seen.get(requestId ?? '') ?? 0) + 1;
    if (requestId !== undefined) seen.set(requestId, nth);
    const context: FaultContext = { requestId, nth, statusRoute };
    const fault = queued.shift() ?? decide?.(request, context);
    if (fault === undefined) return handle(request);
    assertFault(fault);
    stats.faults[fault.type] += 1;
    switch (fault.type) {
      case 'fail-before': {
        const status = fault.status ?? 503;
        const headers = fault.retryAfterSeconds === undefined ? undefined : { [RETRY_AFTER_HEADER]: String(fault.retryAfterSeconds) };
        return new Response(`answer-once/msw: injected ${status}`, { status, headers });
      }
      case 'delay':
        await new Promise((wake) => setTimeout(wake, fault.ms));
        return handle(request);
      case 'lose-response':
        await (await handle(request)).arrayBuffer();
        return HttpResponse.error();
      case 'crash': {
        const worker = crashingWorker(store, server.handler, fault.afterMs ?? 0, () => (stats.runs += 1));
        const dying = createIdempotencyHandler({
          ...server,
          statusPath,
          scope,
          store: worker.store,
          handler: worker.handler,
          onEvent: (event) => {
            if (!worker.crashed()) server.onEvent?.(event);
          },
        });
        await (await dying(request)).arrayBuffer();
        return HttpResponse.error();
      }
    }
  }

  return {
    handlers: [http.all(url, resolve), http.all(`${statusUrl}/:requestId`, resolve)],
    store,
    handle,
    stats,
    inject: (...faults) => {
      faults.forEach(assertFault);
      queued.push(...faults);
    },
  };
}
