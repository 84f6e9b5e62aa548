import { createHash } from 'node:crypto';
import { withDeadline as deadline } from '../server/store/deadline.js';
import type { RedisScriptRunner } from './client.js';
import { isErrorReply, RedisStoreUnavailableError, toStoreError } from './errors.js';
import type { RedisScript } from './scripts/define.js';

/**
 * Rejects with `RedisStoreUnavailableError` when `promise` takes longer than `timeoutMs`.
 * The command may still run later in Redis; every script is safe for that (a late acquire
 * holds a lease nobody renews, so it lapses; a late settle is fenced by its token).
 */
export function withDeadline<T>(promise: Promise<T>, timeoutMs: number, operation: string): Promise<T> {
  return deadline(
    promise,
    timeoutMs,
    () => new RedisStoreUnavailableError(`answer-once/redis: ${operation}: Redis did not answer within ${timeoutMs} ms`),
  );
}

const hashes = new WeakMap<RedisScript, string>();

/** The SHA-1 Redis caches `script` under, hashed once per script. */
function sha1Of(script: RedisScript): string {
  let sha1 = hashes.get(script);
  if (sha1 === undefined) {
    sha1 = createHash('sha1').update(script.source).digest('hex');
    hashes.set(script, sha1);
  }
  return sha1;
}

const isNoScript = (error: unknown): boolean => isErrorReply(error) && error.message.startsWith('NOSCRIPT');

/**
 * One script call, one round trip: EVALSHA, and only when that server's script cache
 * lacks the script (fresh server, restart, failover, `SCRIPT FLUSH`) one EVAL, which
 * also caches it. Works with any client passed in: nothing is registered up front.
 */
export async function runScript(
  client: RedisScriptRunner,
  script: RedisScript,
  keys: string[],
  args: (string | Buffer)[],
  timeoutMs: number,
): Promise<unknown> {
  const call = { keys, arguments: args };
  try {
    // One reaction, not a frame of its own: every append of every stream comes through here.
    const reply = client
      .evalSha(sha1Of(script), call)
      .catch((error: unknown) => (isNoScript(error) ? client.eval(script.source, call) : Promise.reject(error)));
    return await withDeadline(reply, timeoutMs, script.name);
  } catch (error) {
    throw toStoreError(error, script.name);
  }
}
