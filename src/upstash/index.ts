/**
 * `answer-once/upstash`: the store for runtimes that speak only HTTP (Vercel Edge
 * Functions, Cloudflare Workers, Deno Deploy), over Upstash's REST API and the official
 * `@upstash/redis` client (an optional peer dependency). The same scripts and records as
 * `answer-once/redis`; its errors are that store's classes.
 *
 * @module answer-once/upstash
 */

export {
  RedisStoreClosedError,
  RedisStoreError,
  RedisStoreReplyError,
  RedisStoreUnavailableError,
} from '../redis/errors.js';
export type { UpstashRedisClient } from './client.js';

export type { UpstashStoreOptions } from './options.js';
export { UpstashStore } from './store.js';
