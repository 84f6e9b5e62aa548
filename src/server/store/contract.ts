/**
 * The store contract's types in one import: what an implementation of
 * {@link IdempotencyStore}, {@link StreamStore} and {@link StepStore} speaks. A store
 * reaches them as one namespace (`import type * as Store from '…/store/contract.js'`:
 * `Store.WriteResult`, `Store.LogSnapshot`); the values beside them (`isNewToReader`,
 * `stopOffset`, `LOG_LINGER_MS`) stay where they are defined.
 */
export type { StepStart, StepStartOptions, StepStore } from './step-store.js';
export type {
  AcquireResult,
  CompletedRecord,
  IdempotencyRecord,
  IdempotencyStore,
  ProcessingRecord,
  Settlement,
  WriteResult,
} from './store.js';
export type {
  LogAppend,
  LogAppendResult,
  LogPosition,
  LogReadOptions,
  LogSnapshot,
  StopOutcome,
  StreamStore,
} from './stream-store.js';
