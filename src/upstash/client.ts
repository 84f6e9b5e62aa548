/**
 * The slice of `@upstash/redis` that `UpstashStore` uses, as structural types: a
 * `new Redis({ url, token })` (or `Redis.fromEnv()`) from `@upstash/redis`,
 * `@upstash/redis/cloudflare` or `@upstash/redis/fastly` fits, with any options
 * (automatic deserialization on or off, auto-pipelining, base64 replies), and
 * `@upstash/redis` stays a type-only, optional peer.
 */
export interface UpstashRedisClient {
  /** `EVALSHA sha1 numkeys keys… args…`: rejects with Redis's `NOSCRIPT` when the script is not cached. */
  evalsha(sha1: string, keys: string[], args: string[]): Promise<unknown>;
  /** `EVAL script numkeys keys… args…`: runs the script and caches it. */
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
}
