/**
 * What the Workers specs' chat workers share: a scope from the bearer token (401 without
 * one) and a handler whose model is a streamed `fetch` to `modelUrl` (an SSE answer).
 */
import type { createIdempotencyHandler } from 'answer-once/server';

type ChatOptions = Pick<Parameters<typeof createIdempotencyHandler>[0], 'scope' | 'handler'>;

export function workerChat(modelUrl: string): ChatOptions {
  return {
    scope: (request) => {
      const user = request.headers.get('Authorization')?.replace(/^Bearer /, '');
      return user ? { user, session: 'worker' } : new Response('sign in first', { status: 401 });
    },
    handler: async (request, { signal }) => {
      const model = await fetch(modelUrl, { method: 'POST', body: await request.text(), signal });
      return new Response(model.body, { headers: { 'Content-Type': 'text/event-stream' } });
    },
  };
}
