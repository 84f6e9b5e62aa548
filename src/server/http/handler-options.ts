import {
  functionOption,
  invalidOption,
  numberOption,
  optionsObject,
  stringOption,
  timerOption,
} from '../../core/options.js';
import { DEFAULT_STATUS_PATH } from '../../core/status-path.js';
import type { IdempotencyEventListener } from '../events.js';
import { MemoryStore } from '../memory/store.js';
import { type LeaseOptions, normalizeLeaseOptions, type ResolvedLeaseOptions } from '../run/lease-options.js';
import type { RunContext } from '../run/once.js';
import { type JournalOptions, normalizeJournalOptions, type ResolvedJournalOptions } from '../run/step-options.js';
import { DEFAULT_KEY_PREFIX, type Scope } from '../store/key.js';
import type { IdempotencyStore } from '../store/store.js';
import type { Usage } from '../usage.js';
import type { WaitUntil } from './background.js';
import { type CorsOptions, normalizeCorsOptions, type ResolvedCorsOptions } from './cors.js';

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
  /**
   * Keeps what this run cost with its answer — `{ inputTokens, outputTokens }`, plus any
   * other counter (`reasoningTokens`, `cachedInputTokens`…), each a non-negative integer
   * (`undefined` ones are left out). Every answer later given without a run (a replay,
   * an attach, a resume) reports it as the tokens it avoided (`answered` events,
   * `answer-once/otel`). Call it any time before the answer's body ends (e.g. from the
   * AI SDK's `onFinish`); the last report wins, and a stopped answer keeps what was
   * reported before the stop. Throws a `TypeError` naming a bad counter.
   */
  readonly reportUsage: (usage: Usage) => void;
  /**
   * Runs `fn` as the step `name`, once across every run of this intent (PROTOCOL.md
   * § 15): a later run (after a crash, a failed attempt, a takeover) gets the recorded
   * outcome without calling `fn`. See `RunContext.step` (`runOnce`), which it is.
   */
  readonly step: RunContext['step'];
  /** The two-phase form of `step` (see `RunContext.beginStep`). */
  readonly beginStep: RunContext['beginStep'];
}

/** The app's real work — the model call. Runs at most once per intent while it succeeds. */
export type IdempotentRouteHandler = (request: Request, context: HandlerContext) => Response | Promise<Response>;

/**
 * Who is asking, from the app's own auth (a session cookie, a verified JWT) — never from
 * a header the client may set. Return a `Response` (a 401) to answer without running.
 */
export type ScopeResolver = (request: Request) => Scope | Response | Promise<Scope | Response>;

/** Options of `createIdempotencyHandler`. */
export interface IdempotencyHandlerOptions extends LeaseOptions, JournalOptions {
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
   * every "still running" answer points there with `Location`; `DELETE
   * <statusPath>/<requestId>` stops the running intent (PROTOCOL.md § 14.8). `GET`, `HEAD`
   * and `DELETE` are answered (and `OPTIONS` preflights with `cors`); any other method
   * gets 405.
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
   * The most bytes of a streamed answer queued for the connection of the caller that runs
   * the work while that connection is not taking them (a paused socket, a slow network).
   * Past it the queue is dropped and that caller's body reads on from the store's log
   * instead, from where its connection got to, as an attached reader does — so one slow
   * client never holds more than this of the server's memory, and the work is never
   * slowed for it. A caller that falls behind what the log keeps (an answer over
   * `maxResponseBytes`) is ended as such a reader is (PROTOCOL.md § 14.7, § 14.10).
   * @default 1_048_576 (1 MiB)
   */
  maxQueuedBytes?: number;
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
   * Response headers stored and replayed (case-insensitive). `Set-Cookie` (and
   * `Set-Cookie2`) is refused at creation: replaying it would hand the first caller's
   * session to every later one. Hop-by-hop headers are never worth replaying.
   * @default ['content-type', 'content-language', 'content-encoding', 'content-disposition', 'cache-control', 'etag', 'last-modified', 'location', 'link']
   */
  replayHeaders?: readonly string[];
  /**
   * Answer CORS preflights and expose the protocol's headers; `true` uses the defaults.
   * @default false
   */
  cors?: boolean | CorsOptions;
  /**
   * Called on every step of every intent, for logs and metrics; every event carries the
   * intent's `requestId`. A `scope` callback that throws or returns no valid scope is
   * reported here too (`scope-error`), while the caller gets a bare 500 problem.
   * @default undefined
   */
  onEvent?: IdempotencyEventListener;
  /**
   * Put the scope's `user` on every event (for per-user metrics). Off by default: logs
   * then hold request IDs, never who sent them.
   * @default false
   */
  eventsIncludeUser?: boolean;
  /**
   * Keeps the work alive after the response, on runtimes that end a request's work once
   * its response is done or its client gone: `waitUntil` from `@vercel/functions`, or
   * Next.js's `after`. Everything the handler does past its answer — the work producing
   * into the log while the caller is gone, the record's write, the lease's heartbeats —
   * is handed to it as one promise per request, so a client that disconnects never ends
   * the work there. On Cloudflare Workers, whose `ctx` comes with each request, pass it
   * per call instead: `handle(request, ctx)` (or `handle(request, { waitUntil })`, which
   * overrides this option for that request). Not needed on a long-lived Node server.
   * @default undefined
   */
  waitUntil?: WaitUntil;
}

export const DEFAULT_REPLAY_HEADERS = Object.freeze([
  'content-type',
  'content-language',
  'content-encoding',
  'content-disposition',
  'cache-control',
  'etag',
  'last-modified',
  'location',
  'link',
] as const);

/** Headers that carry one caller's session: never stored, never replayed to another. */
const NEVER_REPLAYED = new Set(['set-cookie', 'set-cookie2']);

/** The defaults of {@link IdempotencyHandlerOptions} (the lease's are `LEASE_DEFAULTS`). */
export const HANDLER_DEFAULTS = Object.freeze({
  statusPath: DEFAULT_STATUS_PATH,
  keyPrefix: DEFAULT_KEY_PREFIX,
  inProgressStatus: 202 as 202 | 409,
  retryAfterSeconds: 1,
  maxWaitMs: 20_000,
  maxBodyBytes: 1_048_576,
  maxResponseBytes: 1_048_576,
  maxQueuedBytes: 1_048_576,
  flushMs: 25,
  flushBytes: 65_536,
  replayHeaders: DEFAULT_REPLAY_HEADERS as readonly string[],
  cors: false as boolean | CorsOptions,
  eventsIncludeUser: false,
});

export interface ResolvedHandlerOptions extends ResolvedLeaseOptions, ResolvedJournalOptions {
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
  readonly maxQueuedBytes: number;
  readonly flushMs: number;
  readonly flushBytes: number;
  readonly replayHeaders: ReadonlySet<string>;
  readonly cors: ResolvedCorsOptions | undefined;
  readonly onEvent: IdempotencyEventListener | undefined;
  readonly eventsIncludeUser: boolean;
  readonly waitUntil: WaitUntil | undefined;
}

const STORE_METHODS = ['acquire', 'renew', 'complete', 'fail', 'get', 'wait'] as const;

function replayHeaderSet(value: unknown): ReadonlySet<string> {
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) {
    invalidOption('replayHeaders', 'a list of header names', value);
  }
  const names = new Set((value as string[]).map((name) => name.toLowerCase()));
  for (const name of names) {
    if (NEVER_REPLAYED.has(name)) {
      invalidOption('replayHeaders', 'a list without `Set-Cookie` (it would replay one caller’s session to the next)', name);
    }
  }
  return names;
}

export function normalizeHandlerOptions(options: IdempotencyHandlerOptions): ResolvedHandlerOptions {
  optionsObject(options, 'createIdempotencyHandler() options', false);
  const store = options.store ?? new MemoryStore();
  for (const method of STORE_METHODS) {
    if (typeof store?.[method] !== 'function') invalidOption('store', `an IdempotencyStore (with ${method}())`, store);
  }
  const cors = options.cors ?? HANDLER_DEFAULTS.cors;
  if (typeof cors !== 'boolean' && typeof cors !== 'object') {
    invalidOption('cors', 'a boolean or CORS options', cors);
  }
  const inProgressStatus = options.inProgressStatus ?? HANDLER_DEFAULTS.inProgressStatus;
  if (inProgressStatus !== 202 && inProgressStatus !== 409)
    invalidOption('inProgressStatus', '202 or 409', inProgressStatus);
  const eventsIncludeUser = options.eventsIncludeUser ?? HANDLER_DEFAULTS.eventsIncludeUser;
  if (typeof eventsIncludeUser !== 'boolean') invalidOption('eventsIncludeUser', 'a boolean', eventsIncludeUser);
  return {
    ...normalizeLeaseOptions(options),
    ...normalizeJournalOptions(options),
    scope: functionOption(options.scope, 'scope', false),
    handler: functionOption(options.handler, 'handler', false),
    store,
    statusPath: stringOption(
      options.statusPath ?? HANDLER_DEFAULTS.statusPath,
      'statusPath',
      'a path starting with "/" and not ending with one',
      (path) => path.startsWith('/') && !path.endsWith('/'),
    ),
    keyPrefix: stringOption(
      options.keyPrefix ?? HANDLER_DEFAULTS.keyPrefix,
      'keyPrefix',
      'a string without `{` or `}`',
      (prefix) => !/[{}]/.test(prefix),
    ),
    inProgressStatus,
    retryAfterSeconds: numberOption(options.retryAfterSeconds ?? HANDLER_DEFAULTS.retryAfterSeconds, 'retryAfterSeconds'),
    maxWaitMs: timerOption(options.maxWaitMs ?? HANDLER_DEFAULTS.maxWaitMs, 'maxWaitMs'),
    maxBodyBytes: numberOption(options.maxBodyBytes ?? HANDLER_DEFAULTS.maxBodyBytes, 'maxBodyBytes'),
    maxResponseBytes: numberOption(options.maxResponseBytes ?? HANDLER_DEFAULTS.maxResponseBytes, 'maxResponseBytes'),
    maxQueuedBytes: numberOption(options.maxQueuedBytes ?? HANDLER_DEFAULTS.maxQueuedBytes, 'maxQueuedBytes', {
      min: 1,
    }),
    flushMs: timerOption(options.flushMs ?? HANDLER_DEFAULTS.flushMs, 'flushMs'),
    flushBytes: numberOption(options.flushBytes ?? HANDLER_DEFAULTS.flushBytes, 'flushBytes', { min: 1 }),
    replayHeaders: replayHeaderSet(options.replayHeaders ?? HANDLER_DEFAULTS.replayHeaders),
    cors: cors === false ? undefined : normalizeCorsOptions(cors === true ? {} : cors),
    onEvent: functionOption(options.onEvent, 'onEvent'),
    eventsIncludeUser,
    waitUntil: functionOption(options.waitUntil, 'waitUntil'),
  };
}
