/**
 * A producer that can die, for the demos' crash faults: the handler instance that runs
 * answers, as a server process is. `crash()` kills the current one as a crash or a
 * redeploy does — its open answers' connections reset, its model connections and tools
 * stop (its `signal` aborts), and nothing of it reaches the store again, so its lease
 * lapses as a dead process's does — and starts a fresh one over the same store. The
 * fresh one serves every later request: a resend of the intent waits for the lapsed
 * lease, takes the intent over, and runs it again.
 */

/** One producer's life, as the handler it runs sees it. */
export interface Producer<S extends object> {
  /** Aborts when this producer dies. */
  readonly signal: AbortSignal;
  /** The store as this producer sees it: every call fails once it is dead. */
  readonly store: S;
}

type Handle = (request: Request) => Promise<Response>;

interface Running {
  readonly handle: Handle;
  readonly died: AbortController;
  /** The bodies of the answers it is sending, to reset when it dies. */
  readonly bodies: Set<TransformStreamDefaultController<Uint8Array>>;
}

/** A store whose calls fail once `signal` aborted: nothing of a dead producer reaches it. */
function seenBy<S extends object>(store: S, signal: AbortSignal): S {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        signal.aborted ? Promise.reject(new Error('the producer is dead')) : value.apply(target, args);
    },
  });
}

const reset = () => new TypeError('the connection was reset: the producer died');

export function crashableProducers<S extends object>(store: S, create: (producer: Producer<S>) => Handle) {
  const start = (): Running => {
    const died = new AbortController();
    const producer = { signal: died.signal, store: seenBy(store, died.signal) };
    return { handle: create(producer), died, bodies: new Set() };
  };
  let current = start();

  return {
    /** Serves `request` on the producer alive now; its answer's body resets if that producer dies. */
    async handle(request: Request): Promise<Response> {
      const serving = current;
      const response = await serving.handle(request);
      if (!response.body) return response;
      let sending: TransformStreamDefaultController<Uint8Array>;
      const body = response.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          start(controller) {
            sending = controller;
            if (serving.died.signal.aborted) controller.error(reset());
            else serving.bodies.add(controller);
          },
          flush: () => void serving.bodies.delete(sending),
        }),
      );
      return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
    },
    /** Kills the producer alive now and starts another over the same store. */
    crash(): void {
      const dying = current;
      current = start();
      dying.died.abort(new Error('the producer crashed'));
      for (const body of dying.bodies) body.error(reset());
      dying.bodies.clear();
    },
  };
}
