/**
 * A chat endpoint as deployed on Cloudflare Workers with the HTTP-only store:
 * `createIdempotencyHandler` over an `UpstashStore` (`@upstash/redis/cloudflare`, its
 * REST URL and token from `env`), every request's work handed to `ctx.waitUntil`, its
 * model a streamed `fetch` to `env.MODEL_URL`.
 */
import { Redis } from '@upstash/redis/cloudflare';
import { createIdempotencyHandler } from 'answer-once/server';
import { UpstashStore } from 'answer-once/upstash';
import { workerChat } from './worker-chat.js';

interface Env {
  readonly MODEL_URL: string;
  readonly UPSTASH_REDIS_REST_URL: string;
  readonly UPSTASH_REDIS_REST_TOKEN: string;
  readonly LEASE_MS: string;
}

interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

type Handle = ReturnType<typeof createIdempotencyHandler>;

// Built on the first request: its options come from `env`.
let handle: Handle | undefined;

function build(env: Env): Handle {
  const redis = new Redis({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN, enableTelemetry: false });
  return createIdempotencyHandler({
    store: new UpstashStore({ redis, pollIntervalMs: 25, maxPollIntervalMs: 200 }),
    leaseMs: Number(env.LEASE_MS),
    ...workerChat(env.MODEL_URL),
  });
}

export default {
  fetch(request: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    handle ??= build(env);
    return handle(request, ctx);
  },
};
