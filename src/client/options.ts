/**
 * The client's options: every ky option (they go to `ky.extend`, so hooks, headers,
 * `baseUrl`, `fetch`… still work) plus the protocol's. Normalised once by
 * {@link normalizeClientOptions}; a bad option is a TypeError naming it.
 */
import type { KyInstance, Options as KyOptions } from 'ky';
import {
  HTTP_TOKEN,
  IDEMPOTENCY_KEY_HEADER,
  REPLAYED_HEADER,
  REQUEST_ID_HEADER,
  STRIPE_REPLAYED_HEADER,
} from '../core/headers.js';
import {
  functionOption,
  invalidOption,
  MAX_TIMER_MS,
  numberOption,
  optionsObject,
  stringOption,
  timerOption,
} from '../core/options.js';
import type { SendEventListener } from './events.js';
import type { Outbox, Stopping, Streaming, TabSharing } from './extensions.js';
import { ky } from './ky.js';
import type { ParseMode } from './send/parse.js';
import type { IntentStorage, StorageAdapter } from './storage/types.js';

/** The two headers a server reads the intent's ID from. */
export type RequestIdHeaderName = 'X-Request-Id' | 'Idempotency-Key';

/** How failed attempts are retried. Every retry reuses the intent's ID. */
export interface RetryPolicy {
  /**
   * Retries allowed after the first attempt, across the whole intent: failed attempts,
   * failed polls and resends after the server reports the intent failed.
   * @default 4
   */
  limit?: number;
  /**
   * Ceiling of the first retry's delay in milliseconds; it doubles each retry and the
   * actual delay is a uniformly random share of it (full jitter).
   * @default 300
   */
  delay?: number;
  /**
   * No single backoff delay exceeds this many milliseconds.
   * @default 10_000
   */
  backoffLimit?: number;
  /**
   * A server's `Retry-After` (seconds or HTTP-date) is honoured up to this many
   * milliseconds.
   * @default 30_000
   */
  maxRetryAfter?: number;
  /**
   * Statuses retried with the same ID. 409 "request in progress" (no problem `code`, or
   * `request-in-progress`) is always retried, a 409 with any other code never is;
   * neither are 400, 401, 403, 404 and 422.
   * @default [408, 425, 429, 500, 502, 503, 504]
   */
  statusCodes?: readonly number[];
  /**
   * Source of randomness for the jitter, returning `[0, 1)`; inject a seeded one in tests.
   * @default Math.random
   */
  random?: () => number;
}

/** What `createClient()` accepts: ky's options, minus the ones the client owns, plus these. */
export interface ClientOptions
  extends Omit<KyOptions, 'retry' | 'json' | 'body' | 'method' | 'throwHttpErrors' | 'timeout' | 'totalTimeout'> {
  /**
   * The ky instance to build on; the client extends it, so its hooks and defaults apply.
   * @default ky
   */
  ky?: KyInstance;
  /**
   * The one header to carry the intent's ID in, for a server that reads only one of the
   * two (PROTOCOL.md § 2): `'X-Request-Id'` sends the ID as is, `'Idempotency-Key'` (the
   * IETF draft) as a quoted structured-field string. Unset, every request of the intent
   * carries both, naming the same ID — so a browser that adds its own `Idempotency-Key`
   * to a POST without one (Firefox can) never sends a pair that disagrees.
   * @default undefined — both headers
   */
  headerName?: RequestIdHeaderName;
  /**
   * Response header meaning "this answer was stored, not produced now" (`true`).
   * Stripe's `Idempotent-Replayed` is recognised as well.
   * @default 'X-Idempotent-Replayed'
   */
  replayedHeader?: string;
  /**
   * Retry policy, or just its `limit`.
   * @default { limit: 4, delay: 300, backoffLimit: 10_000, maxRetryAfter: 30_000 }
   */
  retry?: RetryPolicy | number;
  /**
   * Per-attempt (and per-poll) timeout in milliseconds, until the answer's body has
   * arrived (unless `parse: 'none'`); a timed-out attempt is retried
   * with the same ID. Must exceed `pollWait`. `false` disables it.
   * @default 30_000
   */
  timeout?: number | false;
  /**
   * Deadline in milliseconds for the whole intent until its answer's head: every
   * attempt, backoff and poll. (A streamed body is bounded by `idleTimeout` and
   * `retry.limit` once its head arrived; each reconnect is a send with this deadline.)
   * @default 120_000
   */
  totalTimeout?: number;
  /**
   * A streamed body's (`client.fetch`, `client.stream`) longest wait in milliseconds for
   * new answer bytes while its reader asks for more: keepalive comments, markers and
   * bytes it already had do not count; reconnects and their backoff do. Past it the body
   * errors with `DeadlineExceededError` (`option: 'idleTimeout'`). A body that keeps
   * bringing new answer bytes is read as long as it does. `false` disables it.
   * @default the client's `totalTimeout` (120_000)
   */
  idleTimeout?: number | false;
  /**
   * Seconds a status poll asks the server to hold the answer (`Prefer: wait=N`). With a
   * status URL known, the first poll leaves as soon as the 202 arrives, and each next one
   * as soon as a poll comes back 202 after the server held it as long as it said
   * (`Preference-Applied: wait=N`). A server that ignores the preference, or lets go
   * early, is polled at its `Retry-After` (or `pollInterval`) instead. `0` turns
   * long-polling off: every poll waits `Retry-After`/`pollInterval`.
   * @default 10
   */
  pollWait?: number;
  /**
   * Milliseconds between polls when a 202 has no `Retry-After` and the server did not
   * hold the poll (see `pollWait`).
   * @default 1_000
   */
  pollInterval?: number;
  /**
   * The pacing floor of polls: after a 202 the server did not hold (it ignored
   * `Prefer: wait`, or `pollWait` is 0), the next poll waits at least this many
   * milliseconds, whatever its `Retry-After` says; the floor doubles with each such 202
   * in a row, up to `pollInterval`. A server answering `202` + `Retry-After: 0` in a loop
   * thus gets polls 250, 500, 1000, 1000… ms apart, not hundreds a second.
   * @default 250
   */
  minPollInterval?: number;
  /**
   * Status URL of an intent, used when a 202 has no `Location`. Without both, the
   * client re-sends the original request (same ID) to poll.
   * @default undefined
   */
  statusUrl?: (requestId: string) => string | URL;
  /**
   * Where pending intents are written so `client.resume()` can finish them after a
   * reload: `sessionStorageAdapter()`, `localStorageAdapter()`, `memoryStorageAdapter()`
   * or your own {@link IntentStorage} as `storageAdapter(yours)`. The adapter brings what
   * the client does with stored intents, so a client without `storage` (or an `outbox`)
   * bundles none of it.
   * @default undefined (nothing is stored)
   */
  storage?: StorageAdapter;
  /**
   * Share each streamed answer between the tabs of the origin (`shareTabs()`): tabs that
   * read the same intent (a reload in two tabs, a duplicated tab, a resume in every tab)
   * make one network stream; when the reading tab closes, another carries on from its
   * last event. Where the browser has no Web Locks, every tab reads its own.
   * @default undefined (every tab reads its own stream)
   */
  tabs?: TabSharing;
  /**
   * Where a send made offline waits (`indexedDbOutbox()`): a send that finds the browser
   * offline, or whose every attempt failed on the network, is kept there with its ID and
   * request and goes when the browser is back online, in the order sends were made; its
   * promise settles then. `resume()` and `pending()` include the sends it holds.
   * @default undefined (an offline send fails with `ConnectionError`)
   */
  outbox?: Outbox;
  /**
   * What `client.fetch` and `client.stream` are built from (`import { streaming } from
   * 'answer-once'`): the resumable body, SSE positions, stream parts and their parser. A
   * client without it sends (`send`, `resume`) and its bundle carries none of
   * them; its `fetch` and `stream` reject with a `TypeError` naming this option.
   * `answerOnceTransport` brings its own.
   * @default undefined (no `client.fetch` or `client.stream`)
   */
  streaming?: Streaming;
  /**
   * What `client.stop()` is built from (`import { stopping } from 'answer-once'`): the
   * `DELETE` to the status route and the stopped intents kept in storage. A client
   * without it sends, streams and resumes, and its bundle carries none of it; its `stop`
   * rejects with a `TypeError` naming this option. `SendController.stop()`, `useSend`'s
   * `stop` and `answerOnceTransport` stop the server's generation through it.
   * @default undefined (no `client.stop`)
   */
  stopping?: Stopping;
  /**
   * Receives the events of every intent this client sends.
   * @default undefined
   */
  onEvent?: SendEventListener;
  /**
   * How `result.data` is read: `'auto'` (JSON when the content type says JSON, else
   * text), `'json'`, `'text'`, or `'none'` (body left unread on `result.response`).
   * @default 'auto'
   */
  parse?: ParseMode;
}

export interface ResolvedRetryPolicy {
  readonly limit: number;
  readonly delay: number;
  readonly backoffLimit: number;
  readonly maxRetryAfter: number;
  readonly statusCodes: readonly number[];
  readonly random: () => number;
}

export interface ResolvedClientOptions {
  readonly ky: KyInstance;
  /** The `headerName` option: the one ID header, or `undefined` for both. */
  readonly headerName: RequestIdHeaderName | undefined;
  /** The headers naming `requestId` on every request of its intent (attempts, polls, stop). */
  readonly idHeaders: (requestId: string) => Record<string, string>;
  readonly replayedHeaders: readonly string[];
  readonly retry: ResolvedRetryPolicy;
  readonly timeout: number | false;
  readonly totalTimeout: number;
  readonly idleTimeout: number | false;
  readonly pollWait: number;
  readonly pollInterval: number;
  readonly minPollInterval: number;
  readonly statusUrl: ((requestId: string) => string | URL) | undefined;
  readonly storage: IntentStorage | undefined;
  readonly tabs: TabSharing | undefined;
  readonly outbox: Outbox | undefined;
  readonly streaming: Streaming | undefined;
  readonly stopping: Stopping | undefined;
  readonly onEvent: SendEventListener | undefined;
  readonly parse: ParseMode;
  readonly parseJson: KyOptions['parseJson'];
  /** The client-wide `signal`, used when a send brings none of its own. */
  readonly signal: AbortSignal | undefined;
}

/** The statuses `retry` retries by default (see `RetryPolicy.statusCodes`). */
const RETRY_STATUSES: readonly number[] = [408, 425, 429, 500, 502, 503, 504];

const PARSE_MODES: readonly ParseMode[] = ['auto', 'json', 'text', 'none'];
const ID_HEADERS: readonly RequestIdHeaderName[] = [REQUEST_ID_HEADER, IDEMPOTENCY_KEY_HEADER];

/** `parse` (or a send's `parse`): one of the modes. */
export function parseOption(value: unknown, option: string): ParseMode {
  return stringOption(value, option, `one of ${PARSE_MODES.join(', ')}`, (mode) =>
    PARSE_MODES.includes(mode as ParseMode),
  ) as ParseMode;
}

/** `signal` (client-wide or a send's): an AbortSignal, or nothing. */
export function signalOption(value: unknown, option: string): AbortSignal | undefined {
  if (value != null && !(value instanceof AbortSignal)) invalidOption(option, 'an AbortSignal', value);
  return (value ?? undefined) as AbortSignal | undefined;
}

/**
 * A capability the app hands in (`storage`, `tabs`, `outbox`, `streaming`, `stopping`): unset, or the
 * object its factory or export made, known by its `method`.
 */
function capabilityOption(
  value: unknown,
  option: string,
  method: string,
  expected = `\`${option}\` (import { ${option} } from 'answer-once')`,
): void {
  if (value !== undefined && typeof (value as Record<string, unknown> | null)?.[method] !== 'function')
    invalidOption(option, expected, value);
}

function normalizeRetryPolicy(retry: RetryPolicy | number | undefined): ResolvedRetryPolicy {
  if (retry !== undefined && typeof retry !== 'number' && (typeof retry !== 'object' || retry === null)) {
    invalidOption('retry', 'a number or a retry policy object', retry);
  }
  const {
    limit = 4,
    delay = 300,
    backoffLimit = 10_000,
    maxRetryAfter = 30_000,
    statusCodes = RETRY_STATUSES,
    random = Math.random,
  }: RetryPolicy = typeof retry === 'number' ? { limit: retry } : (retry ?? {});
  if (!Array.isArray(statusCodes) || !statusCodes.every((s) => Number.isInteger(s) && s >= 400 && s <= 599)) {
    invalidOption('retry.statusCodes', 'an array of 4xx/5xx statuses', statusCodes);
  }
  return {
    limit: numberOption(limit, 'retry.limit'),
    delay: timerOption(delay, 'retry.delay'),
    backoffLimit: timerOption(backoffLimit, 'retry.backoffLimit'),
    maxRetryAfter: timerOption(maxRetryAfter, 'retry.maxRetryAfter'),
    statusCodes: [...statusCodes],
    random: functionOption(random, 'retry.random', false),
  };
}

/** Validates `options` once and fills in every default. */
export function normalizeClientOptions(options: ClientOptions = {}): ResolvedClientOptions & {
  readonly kyOptions: KyOptions;
} {
  const {
    ky: base = ky,
    headerName,
    replayedHeader = REPLAYED_HEADER,
    retry,
    timeout = 30_000,
    totalTimeout = 120_000,
    idleTimeout = totalTimeout,
    pollWait = 10,
    pollInterval = 1_000,
    minPollInterval = 250,
    statusUrl,
    storage,
    tabs,
    outbox,
    streaming,
    stopping,
    onEvent,
    parse = 'auto',
    ...kyOptions
  } = optionsObject(options, 'options');
  if (typeof base !== 'function' || typeof base.extend !== 'function') invalidOption('ky', 'a ky instance', base);
  const idHeader = ID_HEADERS.find(
    (name) => typeof headerName === 'string' && name.toLowerCase() === headerName.toLowerCase(),
  );
  if (headerName !== undefined && idHeader === undefined)
    invalidOption('headerName', `'${REQUEST_ID_HEADER}' or '${IDEMPOTENCY_KEY_HEADER}'`, headerName);
  stringOption(replayedHeader, 'replayedHeader', 'a header name', (name) => HTTP_TOKEN.test(name));
  if (timeout !== false) timerOption(timeout, 'timeout', 1);
  const wait = numberOption(pollWait, 'pollWait', { max: Math.floor(MAX_TIMER_MS / 1000) });
  if (timeout !== false && wait * 1000 >= timeout) {
    invalidOption('pollWait', `shorter than \`timeout\` (${timeout} ms), in seconds`, wait);
  }
  capabilityOption(
    storage,
    'storage',
    'resuming',
    'a storage adapter (localStorageAdapter()…), your own IntentStorage as storageAdapter(yours)',
  );
  capabilityOption(tabs, 'tabs', 'share', 'shareTabs()');
  capabilityOption(outbox, 'outbox', 'list', 'an outbox (indexedDbOutbox())');
  capabilityOption(streaming, 'streaming', 'attach');
  capabilityOption(stopping, 'stopping', 'attach');
  return {
    ky: base,
    kyOptions,
    headerName: idHeader,
    idHeaders: (id) => ({
      ...(idHeader !== IDEMPOTENCY_KEY_HEADER && { [REQUEST_ID_HEADER]: id }),
      ...(idHeader !== REQUEST_ID_HEADER && { [IDEMPOTENCY_KEY_HEADER]: `"${id}"` }),
    }),
    replayedHeaders: [replayedHeader, STRIPE_REPLAYED_HEADER],
    retry: normalizeRetryPolicy(retry),
    timeout,
    totalTimeout: timerOption(totalTimeout, 'totalTimeout', 1),
    idleTimeout: idleTimeout === false ? false : timerOption(idleTimeout, 'idleTimeout', 1),
    pollWait: wait,
    pollInterval: timerOption(pollInterval, 'pollInterval'),
    minPollInterval: timerOption(minPollInterval, 'minPollInterval', 1),
    statusUrl: functionOption(statusUrl, 'statusUrl'),
    storage,
    tabs,
    outbox,
    streaming,
    stopping,
    onEvent: functionOption(onEvent, 'onEvent'),
    parse: parseOption(parse, 'parse'),
    parseJson: functionOption(kyOptions.parseJson, 'parseJson'),
    signal: signalOption(kyOptions.signal, 'signal'),
  };
}
