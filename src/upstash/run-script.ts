import { RedisStoreError, RedisStoreUnavailableError } from '../redis/errors.js';
import type { RedisScript } from '../redis/scripts/define.js';
import { withDeadline } from '../server/store/deadline.js';
import type { UpstashRedisClient } from './client.js';
import { decodeReply, restScript, sha1Of } from './wire.js';

/** Error replies a retry may cure (a loading, busy, failing-over or overloaded server); every other reply is permanent. */
const TRANSIENT_REPLIES = /^(LOADING|BUSY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY|OOM|NOREPLICAS|MISCONF)\b/;

/**
 * Redis's reply in what the client threw: it appends the whole command to the message
 * (cut off), and its auto-pipelining prefixes `Command failed: `.
 */
const messageOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error))
    .split(', command was:')[0]!
    .replace(/^Command failed: /, '')
    .slice(0, 300);

/** `@upstash/redis` rejects with an `UpstashError` for an answer it got: Redis's error reply, or the API's refusal. */
const isReply = (error: unknown): boolean => error instanceof Error && error.name === 'UpstashError';

const isNoScript = (error: unknown): boolean => isReply(error) && messageOf(error).startsWith('NOSCRIPT');

/** What the client threw, as the store's errors. */
function toStoreError(error: unknown, operation: string): RedisStoreError {
  if (error instanceof RedisStoreError) return error;
  const message = messageOf(error);
  if (isReply(error) && !TRANSIENT_REPLIES.test(message)) {
    return new RedisStoreError(`answer-once/upstash: ${operation} failed: ${message}`, { cause: error });
  }
  return new RedisStoreUnavailableError(`answer-once/upstash: ${operation}: Upstash unavailable (${message})`, {
    cause: error,
  });
}

/**
 * One shared script call over REST: EVALSHA, one request, and only when Redis's script
 * cache lacks it (a new database, a failover, `SCRIPT FLUSH`) one EVAL more, which also
 * caches it. Arguments and reply cross as `wire.ts` says; the reply is what the script
 * returns over TCP, bytes as `Uint8Array`s.
 */
export async function runRestScript(
  redis: UpstashRedisClient,
  script: RedisScript,
  keys: string[],
  args: string[],
  timeoutMs: number,
): Promise<unknown> {
  const rest = restScript(script);
  const attempt = async (): Promise<unknown> => {
    try {
      return await redis.evalsha(await sha1Of(rest), keys, args);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return await redis.eval(rest.source, keys, args);
    }
  };
  let raw: unknown;
  try {
    raw = await withDeadline(
      attempt(),
      timeoutMs,
      () => new RedisStoreUnavailableError(`answer-once/upstash: ${script.name}: no answer within ${timeoutMs} ms`),
    );
  } catch (error) {
    throw toStoreError(error, script.name);
  }
  return decodeReply(raw);
}
