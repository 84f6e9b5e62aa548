import type { CompletedRecord, IdempotencyStore } from './store.js';
import type { StoreCallContext } from './store-call.js';
import { storeCall } from './store-call.js';

/**
 * Counts a model call avoided for the intent at `key` (PROTOCOL.md § 7.6) through the
 * store's `markAvoided`: its completed record when this was the intent's first, else
 * `null` — also on a store without the operation, or one that failed (reported as a
 * `store-error` event). A call avoided is never counted on a guess.
 */
export function countAvoided(
  store: IdempotencyStore,
  key: string,
  context: StoreCallContext,
): Promise<CompletedRecord | null> {
  const { markAvoided } = store;
  if (!markAvoided) return Promise.resolve(null);
  return storeCall('markAvoided', key, () => markAvoided.call(store, key), context).catch(() => null);
}
