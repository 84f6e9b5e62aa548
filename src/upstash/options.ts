import { hasMethods, invalidOption, optionsObject, timerOption } from '../core/options.js';
import { prefixOption } from '../redis/arguments.js';
import type { UpstashRedisClient } from './client.js';

/** Options of `new UpstashStore(options)`. */
export interface UpstashStoreOptions {
  /**
   * An `@upstash/redis` client: `new Redis({ url, token })` or `Redis.fromEnv()`. The
   * store only runs its scripts on it (EVALSHA, EVAL once per script when Redis lacks it)
   * and never changes its settings.
   */
  redis: UpstashRedisClient;

  /**
   * Prepended to every key the store writes, e.g. to share one database between
   * environments. It must not contain `{` or `}` (the keys carry a hash tag).
   * @default ''
   */
  prefix?: string;

  /**
   * How long, at least, a PROCESSING record outlives its lease before Redis deletes it (up
   * to half as long again: appends push its expiry back only when due); during the grace
   * a retry takes it over and a request with another body still gets 422.
   * @default 60_000
   */
  processingGraceMs?: number;

  /**
   * How long one store call (one REST request, two when Redis lacks the script) may take,
   * in milliseconds, before it rejects with `RedisStoreUnavailableError` (503 +
   * `Retry-After`). Counts the client's own retries of a failed fetch.
   * @default 5_000
   */
  commandTimeoutMs?: number;

  /**
   * HTTP has no blocking command and no pub/sub: a waiter (`Prefer: wait`, an attach
   * following a streamed answer, a holder's stop watch) asks again after this many
   * milliseconds, then twice as long after each look that found nothing new, up to
   * `maxPollIntervalMs`; anything new starts it over.
   * @default 100
   */
  pollIntervalMs?: number;

  /**
   * The longest pause between two looks of one waiter, in milliseconds: a waiter costs at
   * most one REST request per this interval once nothing happens.
   * @default 1_000 (or `pollIntervalMs`, when that is longer)
   */
  maxPollIntervalMs?: number;
}

/** Options with every default filled in. */
export interface NormalizedUpstashStoreOptions {
  readonly redis: UpstashRedisClient;
  readonly prefix: string;
  readonly processingGraceMs: number;
  readonly commandTimeoutMs: number;
  readonly pollIntervalMs: number;
  readonly maxPollIntervalMs: number;
}

/** The defaults of {@link UpstashStoreOptions}. */
const UPSTASH_STORE_DEFAULTS = Object.freeze({
  prefix: '',
  processingGraceMs: 60_000,
  commandTimeoutMs: 5_000,
  pollIntervalMs: 100,
  maxPollIntervalMs: 1_000,
});

const LIBRARY = 'answer-once/upstash';

/** Fills in defaults and rejects bad options with a `TypeError` naming the option. */
export function normalizeUpstashStoreOptions(options: UpstashStoreOptions): NormalizedUpstashStoreOptions {
  optionsObject(options, 'UpstashStore options `{ redis }`', false, LIBRARY);
  const { redis } = options;
  if (!hasMethods(redis, ['evalsha', 'eval'])) {
    invalidOption('redis', 'an @upstash/redis client (new Redis({ url, token }))', redis, LIBRARY);
  }
  const defaults = UPSTASH_STORE_DEFAULTS;
  const pollIntervalMs = timerOption(options.pollIntervalMs ?? defaults.pollIntervalMs, 'pollIntervalMs', 1, LIBRARY);
  const maxPollIntervalMs = timerOption(
    options.maxPollIntervalMs ?? Math.max(defaults.maxPollIntervalMs, pollIntervalMs),
    'maxPollIntervalMs',
    pollIntervalMs,
    LIBRARY,
  );
  return Object.freeze({
    redis,
    prefix: prefixOption(options.prefix ?? defaults.prefix, LIBRARY),
    processingGraceMs: timerOption(options.processingGraceMs ?? defaults.processingGraceMs, 'processingGraceMs', 0, LIBRARY),
    commandTimeoutMs: timerOption(options.commandTimeoutMs ?? defaults.commandTimeoutMs, 'commandTimeoutMs', 1, LIBRARY),
    pollIntervalMs,
    maxPollIntervalMs,
  });
}
