/**
 * `answer-once/server`: the reference server of the answer-once protocol for any
 * Fetch-API runtime (Node, Deno, Bun, workers, Next.js route handlers).
 */
export { createIdempotencyHandler } from './handler.js';
export { runOnce } from './run-once.js';
export { MemoryStore } from './memory-store.js';
export { isStreamStore, LOG_LINGER_MS } from './stream-store.js';
export { withCors, CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS } from './cors.js';
export { encodeKey, DEFAULT_KEY_PREFIX } from './key.js';
export { fingerprintRequest } from './fingerprint.js';
export { jsonCodec } from './codec.js';
export { DEFAULT_REPLAY_HEADERS } from './handler-options.js';
export {
  AttemptFailedError,
  FingerprintMismatchError,
  IdempotencyError,
  IntentInProgressError,
  InvalidRequestIdError,
  isIdempotencyError,
  LeaseLostError,
  MissingRequestIdError,
  PayloadTooLargeError,
  ScopeError,
  StoreFailedError,
  StoreUnavailableError,
} from './errors.js';

export type {
  HandlerContext,
  IdempotencyHandlerOptions,
  IdempotentRouteHandler,
  ScopeResolver,
} from './handler-options.js';
export type { HandleOptions, WaitUntil } from './background.js';
export type { RunContext, RunOnceOptions, RunOnceResult } from './run-once.js';
export type { LeaseOptions } from './lease-options.js';
export type { MemoryStoreOptions } from './memory-store-options.js';
export type { CorsOptions } from './cors.js';
export type { Scope } from './key.js';
export type { Codec } from './codec.js';
export type {
  EventSubject,
  IdempotencyEvent,
  IdempotencyEventBody,
  IdempotencyEventListener,
  StoreOperation,
} from './events.js';
export type {
  AcquireResult,
  CompletedRecord,
  FailedRecord,
  IdempotencyRecord,
  IdempotencyState,
  IdempotencyStore,
  ProcessingRecord,
  WriteResult,
} from './store.js';
export type {
  LogAppend,
  LogAppendResult,
  LogPosition,
  LogReadOptions,
  LogSlice,
  LogSnapshot,
  StopResult,
  StreamStore,
} from './stream-store.js';
