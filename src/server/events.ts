/** The store call an event is about. */
export type StoreOperation = 'acquire' | 'renew' | 'complete' | 'fail' | 'get' | 'wait' | 'append' | 'read' | 'stop' | 'watchStop';

/**
 * What happened to an intent, for logs and metrics (model calls saved, takeovers,
 * zombie writes). Listeners are called synchronously; their errors are swallowed.
 */
export type IdempotencyEvent =
  /** This worker holds the intent and starts the work. */
  | { readonly type: 'acquired'; readonly key: string; readonly takeover: boolean; readonly retry: boolean }
  /** The work's result was stored as the intent's answer. */
  | { readonly type: 'completed'; readonly key: string }
  /**
   * The work failed; stored as FAILED. `error` is what the work threw, or, for an HTTP
   * answer of 5xx/408/425/429, `{ status, retryAfter? }`.
   */
  | { readonly type: 'failed'; readonly key: string; readonly error: unknown }
  /** A stored answer was replayed instead of running the work. */
  | { readonly type: 'replayed'; readonly key: string }
  /** An attempt or a status request attached to the answer another attempt is streaming. */
  | { readonly type: 'attached'; readonly key: string }
  /** A stop was asked through the stop route (PROTOCOL.md § 14.8). */
  | { readonly type: 'stop-requested'; readonly key: string }
  /** Another live worker holds the intent; the caller was told to wait or waited. */
  | { readonly type: 'in-progress'; readonly key: string }
  /** A heartbeat found the lease taken over: the work's signal was aborted. */
  | { readonly type: 'lease-lost'; readonly key: string }
  /** A zombie write was rejected by fencing; its result was discarded, never stored. */
  | { readonly type: 'fenced'; readonly key: string; readonly operation: 'complete' | 'fail' }
  /** The store threw; see PROTOCOL.md § 10 for what the caller got. */
  | { readonly type: 'store-error'; readonly key: string; readonly operation: StoreOperation; readonly error: unknown };

/** Receives {@link IdempotencyEvent}s. */
export type IdempotencyEventListener = (event: IdempotencyEvent) => void;

/** Calls `listener`, never letting its failure break the request. */
export function emit(listener: IdempotencyEventListener | undefined, event: IdempotencyEvent): void {
  if (!listener) return;
  try {
    listener(event);
  } catch {
    // A broken metrics hook must not turn an answered intent into an error.
  }
}
