/**
 * A chat endpoint as deployed on Cloudflare Workers with the HTTP-only store:
 * `createIdempotencyHandler` over an `UpstashStore` (`@upstash/redis/cloudflare`, its
 * REST URL and token from `env`), every request's work handed to `ctx.waitUntil`, its
 * model a streamed `fetch` to `env.MODEL_URL`.
 */
import { Redis } from '@upstash/redis/cloudflare';
import { UpstashStore } from 'answer-once/upstash';
import { chatWorker } from './worker-chat.js';

interface Env {
  readonly MODEL_URL: string;
  readonly UPSTASH_REDIS_REST_URL: string;
  readonly UPSTASH_REDIS_REST_TOKEN: string;
  readonly LEASE_MS: string;
}

export default chatWorker<Env>((env) => {
  const redis = new Redis({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN, enableTelemetry: false });
  return new UpstashStore({ redis, pollIntervalMs: 25, maxPollIntervalMs: 200 });
});
