/**
 * What the Workers specs' chat workers share: `createIdempotencyHandler` built on the first
 * request (its options come from `env`), a scope from the bearer token (401 without one)
 * and a handler whose model is a streamed `fetch` to `env.MODEL_URL` (an SSE answer).
 */
import { createIdempotencyHandler, type IdempotencyStore } from 'answer-once/server';

interface ChatEnv {
  readonly MODEL_URL: string;
  readonly LEASE_MS: string;
}

interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
}

type Handle = ReturnType<typeof createIdempotencyHandler>;

function build(env: ChatEnv, store: IdempotencyStore): Handle {
  return createIdempotencyHandler({
    store,
    leaseMs: Number(env.LEASE_MS),
    scope: (request) => {
      const user = request.headers.get('Authorization')?.replace(/^Bearer /, '');
      return user ? { user, session: 'worker' } : new Response('sign in first', { status: 401 });
    },
    handler: async (request, { signal }) => {
      const model = await fetch(env.MODEL_URL, { method: 'POST', body: await request.text(), signal });
      return new Response(model.body, { headers: { 'Content-Type': 'text/event-stream' } });
    },
  });
}

/**
 * A chat worker's entry: its handler over `store(env)`; each request hands its work to
 * `ctx.waitUntil` (`handle(request, ctx)`) when `waitUntil(env)`, otherwise not.
 */
export function chatWorker<E extends ChatEnv>(
  store: (env: E) => IdempotencyStore,
  waitUntil: (env: E) => boolean = () => true,
) {
  let handle: Handle | undefined;
  return {
    fetch(request: Request, env: E, ctx: ExecutionContext): Promise<Response> {
      handle ??= build(env, store(env));
      return waitUntil(env) ? handle(request, ctx) : handle(request);
    },
  };
}
