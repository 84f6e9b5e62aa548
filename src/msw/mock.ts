import { type HttpHandler, HttpResponse, http } from 'msw';
import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER, RETRY_AFTER_HEADER } from '../core/headers.js';
import { functionOption, optionsObject, stringOption } from '../core/options.js';
import { unquote } from '../core/request-id.js';
import { HANDLER_DEFAULTS } from '../server/http/handler-options.js';
import {
  createIdempotencyHandler,
  type IdempotencyHandlerOptions,
  type IdempotencyStore,
  MemoryStore,
  type ScopeResolver,
} from '../server/index.js';
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

const LIBRARY = 'answer-once/msw';

/** The defaults of {@link IdempotentMockOptions} beyond the server's own. */
const MOCK_DEFAULTS = Object.freeze({
  scope: (() => ({ user: 'test-user' })) as ScopeResolver,
  statusPath: HANDLER_DEFAULTS.statusPath,
});

function normalizeIdempotentMockOptions(options: IdempotentMockOptions): ResolvedMockOptions {
  optionsObject(options, 'createIdempotentMock() options', false, LIBRARY);
  const { url, faults, store = new MemoryStore(), scope = MOCK_DEFAULTS.scope, ...server } = options;
  stringOption(url, 'url', 'the absolute URL of the idempotent route', (text) => URL.canParse(text), LIBRARY);
  // The mock wraps `handler` to count runs, so the server's own check never sees it: check it here.
  functionOption(server.handler, 'handler', false, LIBRARY);
  const decide = functionOption(faults, 'faults', true, LIBRARY);
  const { statusPath = MOCK_DEFAULTS.statusPath, ...rest } = server;
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
        const headers =
          fault.retryAfterSeconds === undefined ? undefined : { [RETRY_AFTER_HEADER]: String(fault.retryAfterSeconds) };
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
