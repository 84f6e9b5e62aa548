/**
 * The client's options: every ky option (they go to `ky.extend`, so hooks, headers,
 * `baseUrl`, `fetch`… still work) plus the protocol's. Normalised once by
 * {@link normalizeClientOptions}; a bad option is a TypeError naming it.
 */
import type { KyInstance, Options as KyOptions } from 'ky';
import ky from './ky.js';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER, REQUEST_ID_HEADER, STRIPE_REPLAYED_HEADER } from '../core/headers.js';
import type { SendEventListener } from './events.js';
import { fail, integer, optionalFunction } from './validate.js';
import type { ParseMode } from './parse.js';
import type { IntentStorage } from './storage/types.js';

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
   * Header carrying the intent's ID. `'Idempotency-Key'` switches to the IETF draft,
   * whose value is a quoted structured-field string.
   * @default 'X-Request-Id'
   */
  headerName?: string;
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
   * Deadline in milliseconds for the whole intent: every attempt, backoff and poll.
   * @default 120_000
   */
  totalTimeout?: number;
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
   * or your own {@link IntentStorage}.
   * @default undefined (nothing is stored)
   */
  storage?: IntentStorage;
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
  readonly headerName: string;
  readonly formatId: (requestId: string) => string;
  readonly replayedHeaders: readonly string[];
  readonly retry: ResolvedRetryPolicy;
  readonly timeout: number | false;
  readonly totalTimeout: number;
  readonly pollWait: number;
  readonly pollInterval: number;
  readonly minPollInterval: number;
  readonly statusUrl: ((requestId: string) => string | URL) | undefined;
  readonly storage: IntentStorage | undefined;
  readonly onEvent: SendEventListener | undefined;
  readonly parse: ParseMode;
  readonly parseJson: KyOptions['parseJson'];
  /** The client-wide `signal`, used when a send brings none of its own. */
  readonly signal: AbortSignal | undefined;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
export const PARSE_MODES: readonly ParseMode[] = ['auto', 'json', 'text', 'none'];

function normalizeRetryPolicy(retry: RetryPolicy | number | undefined): ResolvedRetryPolicy {
  const policy: RetryPolicy = typeof retry === 'number' ? { limit: retry } : (retry ?? {});
  if (typeof policy !== 'object' || policy === null) fail('retry', 'a number or an object');
  const statusCodes = policy.statusCodes ?? [408, 425, 429, 500, 502, 503, 504];
  if (!Array.isArray(statusCodes) || !statusCodes.every((s) => Number.isInteger(s) && s >= 400 && s <= 599)) {
    fail('retry.statusCodes', 'an array of 4xx/5xx statuses');
  }
  return {
    limit: integer(policy.limit, 'retry.limit', 4),
    delay: integer(policy.delay, 'retry.delay', 300),
    backoffLimit: integer(policy.backoffLimit, 'retry.backoffLimit', 10_000),
    maxRetryAfter: integer(policy.maxRetryAfter, 'retry.maxRetryAfter', 30_000),
    statusCodes: [...statusCodes],
    random: optionalFunction(policy.random, 'retry.random') ?? Math.random,
  };
}

/** Validates `options` once and fills in every default. */
export function normalizeClientOptions(options: ClientOptions = {}): ResolvedClientOptions & {
  readonly kyOptions: KyOptions;
} {
  if (typeof options !== 'object' || options === null) fail('options', 'an object');
  const {
    ky: base = ky,
    headerName = REQUEST_ID_HEADER,
    replayedHeader = REPLAYED_HEADER,
    retry,
    timeout = 30_000,
    totalTimeout,
    pollWait,
    pollInterval,
    minPollInterval,
    statusUrl,
    storage,
    onEvent,
    parse = 'auto',
    ...kyOptions
  } = options;
  if (typeof base !== 'function' || typeof base.extend !== 'function') fail('ky', 'a ky instance');
  if (typeof headerName !== 'string' || !TOKEN.test(headerName)) fail('headerName', 'a header name');
  if (typeof replayedHeader !== 'string' || !TOKEN.test(replayedHeader)) fail('replayedHeader', 'a header name');
  if (timeout !== false) integer(timeout, 'timeout', 0, 1);
  const wait = integer(pollWait, 'pollWait', 10);
  if (timeout !== false && wait * 1000 >= timeout) fail('pollWait', `shorter than \`timeout\` (${timeout} ms)`);
  if (storage !== undefined && (typeof storage !== 'object' || storage === null || typeof storage.save !== 'function')) {
    fail('storage', 'an IntentStorage adapter');
  }
  if (!PARSE_MODES.includes(parse)) fail('parse', `one of ${PARSE_MODES.join(', ')}`);
  const { signal } = kyOptions;
  if (signal != null && !(signal instanceof AbortSignal)) fail('signal', 'an AbortSignal');
  const ietf = headerName.toLowerCase() === IDEMPOTENCY_KEY_HEADER.toLowerCase();
  return {
    ky: base,
    kyOptions,
    headerName,
    formatId: ietf ? (id) => `"${id}"` : (id) => id,
    replayedHeaders: [replayedHeader, STRIPE_REPLAYED_HEADER],
    retry: normalizeRetryPolicy(retry),
    timeout,
    totalTimeout: integer(totalTimeout, 'totalTimeout', 120_000, 1),
    pollWait: wait,
    pollInterval: integer(pollInterval, 'pollInterval', 1_000),
    minPollInterval: integer(minPollInterval, 'minPollInterval', 250, 1),
    statusUrl: optionalFunction(statusUrl, 'statusUrl'),
    storage,
    onEvent: optionalFunction(onEvent, 'onEvent'),
    parse,
    parseJson: optionalFunction(kyOptions.parseJson, 'parseJson'),
    signal: signal ?? undefined,
  };
}
