/**
 * `answer-once/server`: the reference server of the answer-once protocol for any
 * Fetch-API runtime (Node, Deno, Bun, workers, Next.js route handlers).
 */
export { MemoryStore } from './memory-store.js';
export {
  IdempotencyError,
  IntentFailedError,
  IntentInProgressError,
  InvalidRequestIdError,
  LeaseLostError,
  MissingRequestIdError,
  PayloadTooLargeError,
  RequestIdReusedError,
  StoreUnavailableError,
} from './errors.js';

export type { MemoryStoreOptions } from './memory-store.js';
export type {
  AcquireResult,
  CompletedRecord,
  FailedRecord,
  IdempotencyRecord,
  IdempotencyState,
  IdempotencyStore,
  ProcessingRecord,
} from './store.js';
