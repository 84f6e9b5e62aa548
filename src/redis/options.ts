import type { RedisStoreClient } from './client.js';

/** Options of `new RedisStore(options)`. */
export interface RedisStoreOptions {
  /**
   * A connected node-redis client: `createClient()` for one server, `createCluster()` for
   * a Redis Cluster (Redis ≥ 7: the store uses sharded pub/sub). The store never connects,
   * closes or reconfigures it; give it an `'error'` listener and the reconnection settings
   * you want (see README § Redis store).
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
   * How long a PROCESSING record outlives its lease before Redis deletes it. During the
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

const MAX_TIMER_MS = 2 ** 31 - 1;

function positiveInteger(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > MAX_TIMER_MS) {
    throw new TypeError(
      `answer-once/redis: expected \`${name}\` to be an integer from ${min} to ${MAX_TIMER_MS} (ms), got ${String(value)}`,
    );
  }
  return value;
}

/** Fills in defaults and rejects bad options with a `TypeError` naming the option. */
export function normalizeRedisStoreOptions(options: RedisStoreOptions): NormalizedRedisStoreOptions {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('answer-once/redis: expected an options object `{ client }`');
  }
  const { client } = options;
  if (
    typeof client !== 'object' ||
    client === null ||
    typeof client.evalSha !== 'function' ||
    typeof client.eval !== 'function' ||
    typeof client.duplicate !== 'function' ||
    typeof client.withTypeMapping !== 'function'
  ) {
    throw new TypeError(
      'answer-once/redis: expected `client` to be a node-redis client (createClient() or createCluster())',
    );
  }
  const prefix = options.prefix ?? '';
  if (typeof prefix !== 'string' || /[{}]/.test(prefix)) {
    throw new TypeError('answer-once/redis: expected `prefix` to be a string without `{` or `}`');
  }
  return Object.freeze({
    client,
    prefix,
    processingGraceMs: positiveInteger('processingGraceMs', options.processingGraceMs ?? 60_000, 0),
    commandTimeoutMs: positiveInteger('commandTimeoutMs', options.commandTimeoutMs ?? 2_000, 1),
  });
}
