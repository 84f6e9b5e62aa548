/**
 * `answer-once/server`: the reference server of the answer-once protocol for any
 * Fetch-API runtime (Node, Deno, Bun, workers, Next.js route handlers).
 *
 * @module answer-once/server
 */

export {
  AttemptFailedError,
  FingerprintMismatchError,
  IdempotencyError,
  IntentExhaustedError,
  IntentInProgressError,
  InvalidRequestIdError,
  isIdempotencyError,
  LeaseLostError,
  MissingRequestIdError,
  PayloadTooLargeError,
  RequestBodyIncompleteError,
  ScopeError,
  StoreFailedError,
  StoreUnavailableError,
} from './errors.js';
export type {
  AnswerOutcome,
  EventSubject,
  IdempotencyEvent,
  IdempotencyEventBody,
  IdempotencyEventListener,
  StoreOperation,
} from './events.js';
export type { HandleOptions, WaitUntil } from './http/background.js';
export type { CorsOptions } from './http/cors.js';
export { CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, withCors } from './http/cors.js';
export { fingerprintRequest } from './http/fingerprint.js';
export { createIdempotencyHandler } from './http/handler.js';
export type {
  HandlerContext,
  IdempotencyHandlerOptions,
  IdempotentRouteHandler,
  ScopeResolver,
} from './http/handler-options.js';
export { DEFAULT_REPLAY_HEADERS } from './http/handler-options.js';
export type { MemoryStoreOptions } from './memory/options.js';
export { MemoryStore } from './memory/store.js';
export type { Codec } from './run/codec.js';
export { jsonCodec } from './run/codec.js';
export type { LeaseOptions } from './run/lease-options.js';
export type { RunContext, RunOnceOptions, RunOnceResult } from './run/once.js';
export { runOnce } from './run/once.js';
export { StepOutcomeTooLargeError, StepUncertainError } from './run/step-errors.js';
export type { BeginStepOptions, BegunStep, OpenStep, RecordedStep, UncertainStep } from './run/step-journal.js';
export type {
  JournalOptions,
  StepContext,
  StepInfo,
  StepOptions,
  StepReconciliation,
  StepRepeat,
} from './run/step-options.js';
export type { StepOutcome } from './run/step-outcome.js';
export type {
  AcquireResult,
  CompletedRecord,
  FailedRecord,
  IdempotencyRecord,
  IdempotencyState,
  IdempotencyStore,
  LogAppend,
  LogAppendResult,
  LogPosition,
  LogReadOptions,
  LogSlice,
  LogSnapshot,
  ProcessingRecord,
  StepStart,
  StepStartOptions,
  StepStore,
  StopOutcome,
  StreamStore,
  WriteResult,
} from './store/contract.js';
export type { Scope } from './store/key.js';
export { DEFAULT_KEY_PREFIX, encodeKey } from './store/key.js';
export { isStepStore } from './store/step-store.js';
export { isStreamStore, LOG_LINGER_MS } from './store/stream-store.js';
export type { StepsAvoided, Usage } from './usage.js';
