import { IdempotencyError, StoreUnavailableError } from './errors.js';
import { emit, type IdempotencyEventListener, type StoreOperation } from './events.js';

/**
 * Runs one store call; a failure (Redis down, timeout, a full memory store) becomes a
 * `StoreUnavailableError` that the handler answers as 503 + `Retry-After`, and is
 * reported as an event. A store's own `StoreUnavailableError` is wrapped too (kept as
 * `cause`): the answer then carries this intent's ID and the configured `Retry-After`,
 * and its title never the store's message (which may name the key, so the user).
 */
export async function storeCall<T>(
  operation: StoreOperation,
  key: string,
  call: () => Promise<T>,
  context: { readonly onEvent?: IdempotencyEventListener; readonly retryAfterSeconds?: number; readonly requestId?: string },
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    emit(context.onEvent, { type: 'store-error', key, operation, error });
    if (error instanceof IdempotencyError && !(error instanceof StoreUnavailableError)) throw error;
    throw new StoreUnavailableError(`answer-once: the idempotency store failed during ${operation}.`, {
      cause: error,
      ...(context.requestId === undefined ? {} : { requestId: context.requestId }),
      ...(context.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: context.retryAfterSeconds }),
    });
  }
}
