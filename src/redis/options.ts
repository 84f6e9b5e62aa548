import { hasMethods, invalidOption, optionsObject, timerOption } from '../core/options.js';
import { prefixOption } from './arguments.js';
import type { RedisStoreClient } from './client.js';

/** Options of `new RedisStore(options)`. */
export interface RedisStoreOptions {
  /**
   * A connected node-redis client: `createClient()` for one server, `createCluster()` for
   * a Redis Cluster (Redis ≥ 7: the store uses sharded pub/sub). The store never connects,
   * closes or reconfigures it; give it an `'error'` listener and the reconnection settings
   * you want (see docs/stores.md).
   */
  client: RedisStoreClient;

  /**
   * Prepended to every key the store writes (and to its pub/sub channels), e.g. to share
   * one Redis between environments. The handler's keys already start with its own
   * `keyPrefix` (`answer-once:{…}`). It must not contain `{` or `}`: the keys carry a
   * Cluster hash tag that the prefix must not shadow.
   * @default ''
   */
  prefix?: string;

  /**
   * How long, at least, a PROCESSING record outlives its lease before Redis deletes it
   * (up to half as long again: appends push its expiry back only when due). During the
   * grace a retry finds the record, takes it over (`takeover: true`, `createdAt` kept) and
   * a request with another body still gets 422 instead of running.
   * @default 60_000
   */
  processingGraceMs?: number;

  /**
   * How long one store call may take, in milliseconds, before it rejects with
   * `RedisStoreUnavailableError` (the handler then answers 503 + `Retry-After`). Bounds
   * the wait even when node-redis queues commands offline while it reconnects.
   * @default 2_000
   */
  commandTimeoutMs?: number;
}

/** Options with every default filled in. */
export interface NormalizedRedisStoreOptions {
  readonly client: RedisStoreClient;
  readonly prefix: string;
  readonly processingGraceMs: number;
  readonly commandTimeoutMs: number;
}

/** The defaults of {@link RedisStoreOptions}. */
const REDIS_STORE_DEFAULTS = Object.freeze({ prefix: '', processingGraceMs: 60_000, commandTimeoutMs: 2_000 });

const LIBRARY = 'answer-once/redis';

/** Fills in defaults and rejects bad options with a `TypeError` naming the option. */
export function normalizeRedisStoreOptions(options: RedisStoreOptions): NormalizedRedisStoreOptions {
  optionsObject(options, 'RedisStore options `{ client }`', false, LIBRARY);
  const { client } = options;
  if (!hasMethods(client, ['evalSha', 'eval', 'duplicate', 'withTypeMapping'])) {
    invalidOption('client', 'a node-redis client (createClient() or createCluster())', client, LIBRARY);
  }
  const { prefix = REDIS_STORE_DEFAULTS.prefix } = options;
  return Object.freeze({
    client,
    prefix: prefixOption(prefix, LIBRARY),
    // The grace is a Redis expiry, the command timeout a timer: both within 2³¹−1 ms.
    processingGraceMs: timerOption(
      options.processingGraceMs ?? REDIS_STORE_DEFAULTS.processingGraceMs,
      'processingGraceMs',
      0,
      LIBRARY,
    ),
    commandTimeoutMs: timerOption(
      options.commandTimeoutMs ?? REDIS_STORE_DEFAULTS.commandTimeoutMs,
      'commandTimeoutMs',
      1,
      LIBRARY,
    ),
  });
}
