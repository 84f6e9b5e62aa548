import { type CorsOptions, normalizeCorsOptions, type ResolvedCorsOptions } from './cors.js';
import type { IdempotencyEventListener } from './events.js';
import { DEFAULT_KEY_PREFIX, type Scope } from './key.js';
import { assertNumber, type LeaseOptions, normalizeLeaseOptions, type ResolvedLeaseOptions } from './lease-options.js';
import { MemoryStore } from './memory-store.js';
import type { IdempotencyStore } from './store.js';

/** What the app's handler receives besides the request. */
export interface HandlerContext {
  /** The intent's ID, as the client sent it. */
  readonly requestId: string;
  /** Who the intent belongs to, as `scope` said. */
  readonly scope: Scope;
  /** The store key of the intent. */
  readonly key: string;
  /**
   * Aborted when this worker's lease was taken over (its answer will be discarded: stop
   * generating). NOT aborted when the client disconnects: the work finishes and its
   * answer is stored for the client's retry — that is the point.
   */
  readonly signal: AbortSignal;
  /** A dead worker's expired lease was taken over. */
  readonly takeover: boolean;
  /** The previous attempt of this intent failed. */
  readonly retry: boolean;
}

/** The app's real work — the model call. Runs at most once per intent while it succeeds. */
export type IdempotentRouteHandler = (request: Request, context: HandlerContext) => Response | Promise<Response>;

/**
 * Who is asking, from the app's own auth (a session cookie, a verified JWT) — never from
 * a header the client may set. Return a `Response` (a 401) to answer without running.
 */
export type ScopeResolver = (request: Request) => Scope | Response | Promise<Scope | Response>;

/** Options of `createIdempotencyHandler`. */
export interface IdempotencyHandlerOptions extends LeaseOptions {
  /** Resolves the caller's (user, session). Required. */
  scope: ScopeResolver;
  /** The work to run once per intent. Required. */
  handler: IdempotentRouteHandler;
  /**
   * Where intents live. Share one (e.g. `RedisStore`) between server instances.
   * @default new MemoryStore()
   */
  store?: IdempotencyStore;
  /**
   * The status route: `GET <statusPath>/<requestId>` answers the intent's state, and
   * every "still running" answer points there with `Location`.
   * @default '/api/status'
   */
  statusPath?: string;
  /**
   * Prefix of every store key (`<prefix>{<user>:<session>:<id>}`); no `{` or `}`.
   * @default 'answer-once:'
   */
  keyPrefix?: string;
  /**
   * How a resend of a running intent is answered: `202` (Accepted + `Location`), or `409`
   * as the IETF idempotency-key draft does (problem `request-in-progress`). Both carry
   * `Retry-After`; the status route always answers 202.
   * @default 202
   */
  inProgressStatus?: 202 | 409;
  /**
   * `Retry-After` seconds on "still running" and "store unavailable" answers.
   * @default 1
   */
  retryAfterSeconds?: number;
  /**
   * The longest a request may be held by `Prefer: wait=N`.
   * @default 20_000
   */
  maxWaitMs?: number;
  /**
   * The largest request body accepted; larger ones get 413 and nothing is stored.
   * @default 1_048_576 (1 MiB)
   */
  maxBodyBytes?: number;
  /**
   * The largest answer body stored for replay. A larger answer is still delivered to the
   * caller that ran it; its record says "not replayable" (a replay gets 410).
   * @default 1_048_576 (1 MiB)
   */
  maxResponseBytes?: number;
  /**
   * How long a streamed answer's bytes may wait before they are appended to the store's
   * log (one batch per window: fewer store round trips, later bytes for readers on other
   * instances). The caller that runs the work gets every byte at once regardless.
   * @default 25
   */
  flushMs?: number;
  /**
   * A batch is appended as soon as it holds this many bytes, before its window ends.
   * @default 65_536 (64 KiB)
   */
  flushBytes?: number;
  /**
   * Response headers stored and replayed (case-insensitive). `Set-Cookie` and hop-by-hop
   * headers are never worth replaying.
   * @default ['content-type', 'content-language', 'content-encoding', 'content-disposition', 'cache-control', 'etag', 'last-modified', 'location', 'link']
   */
  replayHeaders?: readonly string[];
  /**
   * Answer CORS preflights and expose the protocol's headers; `true` uses the defaults.
   * @default false
   */
  cors?: boolean | CorsOptions;
  /** Called on every step of every intent, for logs and metrics. @default undefined */
  onEvent?: IdempotencyEventListener;
}

export const DEFAULT_REPLAY_HEADERS = [
  'content-type',
  'content-language',
  'content-encoding',
  'content-disposition',
  'cache-control',
  'etag',
  'last-modified',
  'location',
  'link',
] as const;

export interface ResolvedHandlerOptions extends ResolvedLeaseOptions {
  readonly scope: ScopeResolver;
  readonly handler: IdempotentRouteHandler;
  readonly store: IdempotencyStore;
  readonly statusPath: string;
  readonly keyPrefix: string;
  readonly inProgressStatus: 202 | 409;
  readonly retryAfterSeconds: number;
  readonly maxWaitMs: number;
  readonly maxBodyBytes: number;
  readonly maxResponseBytes: number;
  readonly flushMs: number;
  readonly flushBytes: number;
  readonly replayHeaders: ReadonlySet<string>;
  readonly cors: ResolvedCorsOptions | undefined;
  readonly onEvent: IdempotencyEventListener | undefined;
}

export function normalizeHandlerOptions(options: IdempotencyHandlerOptions): ResolvedHandlerOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('answer-once: createIdempotencyHandler() needs an options object.');
  }
  const {
    scope,
    handler,
    store = new MemoryStore(),
    statusPath = '/api/status',
    keyPrefix = DEFAULT_KEY_PREFIX,
    inProgressStatus = 202,
    retryAfterSeconds = 1,
    maxWaitMs = 20_000,
    maxBodyBytes = 1_048_576,
    maxResponseBytes = 1_048_576,
    flushMs = 25,
    flushBytes = 65_536,
    replayHeaders = DEFAULT_REPLAY_HEADERS,
    cors = false,
    onEvent,
  } = options;
  if (typeof scope !== 'function') throw new TypeError('answer-once: `scope` must be a function (request) => { user, session }.');
  if (typeof handler !== 'function') throw new TypeError('answer-once: `handler` must be a function (request, context) => Response.');
  for (const method of ['acquire', 'renew', 'complete', 'fail', 'get', 'wait'] as const) {
    if (typeof store?.[method] !== 'function') throw new TypeError(`answer-once: \`store\` has no ${method}() method.`);
  }
  if (typeof statusPath !== 'string' || !statusPath.startsWith('/') || statusPath.endsWith('/')) {
    throw new TypeError('answer-once: `statusPath` must start with "/" and not end with one.');
  }
  if (typeof keyPrefix !== 'string' || /[{}]/.test(keyPrefix)) {
    throw new TypeError('answer-once: `keyPrefix` must be a string without `{` or `}`.');
  }
  if (inProgressStatus !== 202 && inProgressStatus !== 409) {
    throw new TypeError('answer-once: `inProgressStatus` must be 202 or 409.');
  }
  assertNumber('retryAfterSeconds', retryAfterSeconds);
  assertNumber('maxWaitMs', maxWaitMs);
  assertNumber('maxBodyBytes', maxBodyBytes);
  assertNumber('maxResponseBytes', maxResponseBytes);
  assertNumber('flushMs', flushMs);
  if (flushMs > 2 ** 31 - 1) throw new TypeError('answer-once: `flushMs` must be at most 2147483647.');
  assertNumber('flushBytes', flushBytes, 1);
  if (!Array.isArray(replayHeaders) || !replayHeaders.every((name) => typeof name === 'string')) {
    throw new TypeError('answer-once: `replayHeaders` must be a list of header names.');
  }
  if (typeof cors !== 'boolean' && (typeof cors !== 'object' || cors === null)) {
    throw new TypeError('answer-once: `cors` must be a boolean or CORS options.');
  }
  if (onEvent !== undefined && typeof onEvent !== 'function') throw new TypeError('answer-once: `onEvent` must be a function.');
  return {
    ...normalizeLeaseOptions(options),
    scope,
    handler,
    store,
    statusPath,
    keyPrefix,
    inProgressStatus,
    retryAfterSeconds: Math.ceil(retryAfterSeconds),
    maxWaitMs,
    maxBodyBytes,
    maxResponseBytes,
    flushMs,
    flushBytes,
    replayHeaders: new Set(replayHeaders.map((name) => name.toLowerCase())),
    cors: cors === false ? undefined : normalizeCorsOptions(cors === true ? {} : cors),
    onEvent,
  };
}
