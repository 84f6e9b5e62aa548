/**
 * Rapid clicks: calls sharing a join key while one is in flight share its run — one
 * request, one ID, one result. Each caller may leave early with its own signal; the run
 * itself is aborted only when every caller has left. After it settles, the key is free
 * and the next call starts a new intent.
 */
import type { IntentErrorContext } from '../errors/answer-once-error.js';
import type { SendEvent, SendEventListener } from '../events.js';

interface Shared<T> {
  readonly promise: Promise<T>;
  /**
   * Aborts the run once every caller has left. Only a run whose first caller has a
   * signal gets one: a caller without a signal never leaves, so that run is never aborted.
   */
  readonly controller: AbortController | undefined;
  /** Each caller's listener, as often as callers passed it: each called once per event. */
  readonly listeners: SendEventListener[];
  /** What the run has done so far, for the error of a caller who leaves early. */
  readonly progress: { requestId: string; attempts: number; polls: number };
  callers: number;
}

/** Starts the run; `emit` is `undefined` when nobody listens, so no event is built. */
export type Start<T> = (signal: AbortSignal | undefined, emit: SendEventListener | undefined) => Promise<T>;

/** Calls `listener` and ignores what it throws: a UI bug must not break the send. */
export function notify(listener: SendEventListener | undefined, event: SendEvent): void {
  try {
    listener?.(event);
  } catch {
    // Listeners must not throw; see SendEventListener.
  }
}

export function createJoiner<T>(leave: (signal: AbortSignal, progress: IntentErrorContext) => unknown) {
  const inFlight = new Map<string, Shared<T>>();

  return function join(
    key: string | undefined,
    requestId: string,
    start: Start<T>,
    signal: AbortSignal | undefined,
    listener: SendEventListener | undefined,
  ): Promise<T> {
    if (key === undefined) return start(signal, listener);
    let shared = inFlight.get(key);
    if (!shared) {
      const controller = signal ? new AbortController() : undefined;
      const listeners: SendEventListener[] = [];
      const progress = { requestId, attempts: 0, polls: 0 };
      const promise = start(controller?.signal, (event) => {
        if (event.type === 'attempt') progress.attempts = event.attempt;
        if (event.type === 'poll') progress.polls = event.polls;
        for (const each of new Set(listeners)) notify(each, event);
      }).finally(() => {
        if (inFlight.get(key) === shared) inFlight.delete(key);
      });
      shared = { promise, controller, listeners, progress, callers: 0 };
      inFlight.set(key, shared);
    }
    return attach(key, shared, signal, listener);
  };

  function attach(
    key: string,
    shared: Shared<T>,
    signal: AbortSignal | undefined,
    listener: SendEventListener | undefined,
  ): Promise<T> {
    shared.callers += 1;
    if (listener) shared.listeners.push(listener);
    // A caller without a signal never leaves. Once the run settles, nothing reads the
    // count or the listeners again: only a caller who leaves early gives them back.
    if (!signal) return shared.promise;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        shared.callers -= 1;
        if (listener) shared.listeners.splice(shared.listeners.indexOf(listener), 1);
        if (shared.callers === 0) {
          // Nobody waits any more: stop the run, and free the key for the next click now.
          if (inFlight.get(key) === shared) inFlight.delete(key);
          shared.controller?.abort(signal.reason);
        }
        reject(leave(signal, { ...shared.progress }));
      };
      // Handled first, always: a caller whose signal was aborted already still leaves the
      // run rejecting (it aborts when nobody else waits), and nobody else may be listening.
      shared.promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
