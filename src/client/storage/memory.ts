import { resuming } from './resuming.js';
import { byCreatedAt, type StorageAdapter, type StoredIntent } from './types.js';

/**
 * Keeps pending intents in memory: they survive a remount or a client re-creation in
 * the same page, not a reload. Useful in Node, workers and tests.
 */
export function memoryStorageAdapter(): StorageAdapter {
  const intents = new Map<string, StoredIntent>();
  return {
    resuming,
    save(intent) {
      intents.set(intent.requestId, structuredClone(intent));
    },
    remove(requestId) {
      intents.delete(requestId);
    },
    list() {
      return [...intents.values()].map((intent) => structuredClone(intent)).sort(byCreatedAt);
    },
  };
}
