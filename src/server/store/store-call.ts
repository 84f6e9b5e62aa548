import { IdempotencyError, StoreFailedError, StoreUnavailableError } from '../errors.js';
import type { Reporter, StoreOperation } from '../events.js';

/** What a store call needs besides the call: where to report, and how to answer a failure. */
export interface StoreCallContext {
  readonly report: Reporter;
  /** The longest the call may take (PROTOCOL.md § 10.1). */
  readonly timeoutMs: number;
  readonly retryAfterSeconds?: number;
  readonly requestId?: string;
}

/** The store did not answer within the deadline: a transient failure. */
class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError' as const;
  readonly code = 'store-unavailable' as const;
}

/**
 * Rejects with a {@link StoreTimeoutError} once `timeoutMs` passes; the call itself may still land later.
 * The timer is armed only for a call still pending after the current microtask turn: an
 * in-memory store has answered by then, and a timer set and cleared around each of its
 * calls cost ~0.5 µs a call (Node's timer list for the duration made and dropped again).
 */
export function withStoreDeadline<T>(call: () => Promise<T>, operation: StoreOperation, timeoutMs: number): Promise<T> {
  let pending: Promise<T>;
  try {
    pending = Promise.resolve(call());
  } catch (error) {
    return Promise.reject(error); // a store that throws synchronously is a rejecting store
  }
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    pending.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
    // Queued after the reaction above: a call that had already settled has run it by now.
    queueMicrotask(() => {
      if (settled) return;
      timer = setTimeout(
        () => reject(new StoreTimeoutError(`answer-once: the store did not answer ${operation} within ${timeoutMs} ms.`)),
        timeoutMs,
      );
    });
  });
}

/**
 * True when the store says no retry will cure its failure (PROTOCOL.md § 10.4): an error
 * whose `code` is `store-failed` (Redis `WRONGTYPE`, `NOPERM`, a script error). Every other
 * failure — `store-unavailable`, a timeout, an unclassified error — counts as transient.
 */
export function isPermanentStoreError(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'store-failed';
}

/**
 * Runs one store call under a deadline: `context.timeoutMs`, plus `heldMs` for a call the
 * store may hold that long before answering (a long-poll's `wait`, a log `read` that
 * waits; PROTOCOL.md § 10.1). A failure is reported as a `store-error` event
 * and becomes a `StoreUnavailableError` (503 + `Retry-After`) when transient, a
 * `StoreFailedError` (500) when permanent. The answer's title never carries the store's
 * message (which may name the key, so the user); `cause` keeps it.
 */
export async function storeCall<T>(
  operation: StoreOperation,
  key: string,
  call: () => Promise<T>,
  context: StoreCallContext,
  heldMs = 0,
): Promise<T> {
  try {
    return await withStoreDeadline(call, operation, context.timeoutMs + heldMs);
  } catch (error) {
    context.report({ type: 'store-error', key, operation, error });
    if (
      error instanceof IdempotencyError &&
      !(error instanceof StoreUnavailableError) &&
      !(error instanceof StoreFailedError)
    ) {
      throw error;
    }
    const options = {
      cause: error,
      ...(context.requestId === undefined ? {} : { requestId: context.requestId }),
    };
    if (isPermanentStoreError(error)) {
      throw new StoreFailedError(`answer-once: the idempotency store refused ${operation}.`, options);
    }
    throw new StoreUnavailableError(`answer-once: the idempotency store failed during ${operation}.`, {
      ...options,
      ...(context.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: context.retryAfterSeconds }),
    });
  }
}
