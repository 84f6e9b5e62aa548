import type { HandlerContext, IdempotencyStore, IdempotentRouteHandler } from '../server/index.js';

/** Thrown inside a worker the mock killed; never reaches the client. */
export class WorkerCrashedError extends Error {
  override name = 'WorkerCrashedError' as const;
}

/**
 * What one crashing request's worker looks like from the outside: the app's work starts,
 * then the process dies — its signal aborts the work, and nothing it would still say to
 * the store (heartbeats, its answer, its failure) arrives there.
 */
export function crashingWorker(
  store: IdempotencyStore,
  handler: IdempotentRouteHandler,
  afterMs: number,
  onStart: () => void,
): { readonly store: IdempotencyStore; readonly handler: IdempotentRouteHandler; readonly crashed: () => boolean } {
  let dead = false;
  const silent = <T>(alive: () => Promise<T>, deadAnswer: T) => (dead ? Promise.resolve(deadAnswer) : alive());
  return {
    crashed: () => dead,
    store: {
      acquire: (...args) => store.acquire(...args),
      get: (...args) => store.get(...args),
      wait: (...args) => store.wait(...args),
      renew: (...args) => silent(() => store.renew(...args), 'written'),
      complete: (...args) => silent(() => store.complete(...args), 'written'),
      fail: (...args) => silent(() => store.fail(...args), 'written'),
    },
    handler: async (request: Request, context: HandlerContext) => {
      const death = new AbortController();
      onStart();
      const work = Promise.resolve(
        handler(request, { ...context, signal: AbortSignal.any([context.signal, death.signal]) }),
      );
      work.catch(() => {}); // once the process is gone, how the work ends is nobody's business
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<'crash'>((resolve) => (timer = setTimeout(resolve, afterMs, 'crash')));
      const first = await Promise.race([work, deadline]).finally(() => clearTimeout(timer));
      // The work finished before the crash: its answer is stored, only the response dies.
      if (first !== 'crash') return first;
      dead = true;
      death.abort(new WorkerCrashedError('answer-once/msw: the worker crashed mid-work.'));
      throw death.signal.reason;
    },
  };
}
