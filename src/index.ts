/**
 * answer-once — the client. One user intent, one ID on every attempt and poll, at most
 * one model call, exactly one answer. Browser-safe: no Node built-ins.
 *
 * @module answer-once
 */

export type { AnswerOnceClient } from './client/client.js';
export { createClient } from './client/client.js';
// ── Send controller: the framework-free state
// machine that `useSend` subscribes to, for Vue, Svelte or plain DOM UIs. ──
export { SendController } from './client/controller/controller.js';
export type {
  ControllerClient,
  ControllerSendOptions,
  SendControllerOptions,
} from './client/controller/controller-options.js';
export type { StreamText } from './client/controller/read-streamed.js';
export type { RetryInfo, SendState, SendStatus } from './client/controller/send-state.js';
export { AbortError } from './client/errors/abort-error.js';
export type { IntentErrorContext } from './client/errors/answer-once-error.js';
export { AnswerOnceError } from './client/errors/answer-once-error.js';
export { AnswerRestartedError } from './client/errors/answer-restarted-error.js';
export { ConnectionError } from './client/errors/connection-error.js';
export { DeadlineExceededError } from './client/errors/deadline-exceeded-error.js';
export {
  isAbortError,
  isAnswerOnceError,
  isAnswerRestartedError,
  isConnectionError,
  isDeadlineExceededError,
  isIntentExhaustedError,
  isIntentFailedError,
  isProtocolError,
  isRequestIdReusedError,
  isResponseError,
  isStopNotConfirmedError,
  isStoredIntentError,
  isUnreplayableBodyError,
} from './client/errors/guards.js';
export { IntentExhaustedError } from './client/errors/intent-exhausted-error.js';
export { IntentFailedError } from './client/errors/intent-failed-error.js';
export { ProtocolError } from './client/errors/protocol-error.js';
export { RequestIdReusedError } from './client/errors/request-id-reused-error.js';
export type { ErrorResponse } from './client/errors/response-error.js';
export { ResponseError } from './client/errors/response-error.js';
export { StopNotConfirmedError } from './client/errors/stop-not-confirmed-error.js';
export { StoredIntentError } from './client/errors/stored-intent-error.js';
export { UnreplayableBodyError } from './client/errors/unreplayable-body-error.js';
export type {
  AcceptedEvent,
  AttemptEvent,
  PollEvent,
  QueuedEvent,
  ReconnectEvent,
  ReplayedEvent,
  RestartEvent,
  RetryEvent,
  RetryReason,
  SendEvent,
  SendEventListener,
  SettledEvent,
} from './client/events.js';
export type { Outbox, Stopping, Streaming, TabChannel, TabLocks, TabSharing } from './client/extensions.js';
export type { ClientOptions, RequestIdHeaderName, RetryPolicy } from './client/options.js';
export type { ParseMode } from './client/send/parse.js';
export type { SendResult } from './client/send/run-intent.js';
export type { SendOptions } from './client/send/send-options.js';
export type { StopOptions, StopResult } from './client/stop/stop.js';
export { stopping } from './client/stop/stop.js';
export { memoryStorageAdapter } from './client/storage/memory.js';
export type { ResumeOptions, ResumeOutcome } from './client/storage/resuming.js';
export { storageAdapter } from './client/storage/resuming.js';
export type { IntentStorage, StorageAdapter, StoredIntent } from './client/storage/types.js';
export type { WebStorageAdapterOptions } from './client/storage/web.js';
export { localStorageAdapter, sessionStorageAdapter, webStorageAdapter } from './client/storage/web.js';
export type { AnswerStream, StreamPart } from './client/stream/answer-stream.js';
export type { StreamOptions } from './client/stream/streaming.js';
export { streaming } from './client/stream/streaming.js';
export type { TabSharingOptions } from './client/tabs/tab-sharing.js';
export { shareTabs } from './client/tabs/tab-sharing.js';
export { newRequestId } from './core/ids.js';
export type { ProblemCode, ProblemDetails } from './core/problems.js';
export { isValidRequestId } from './core/request-id.js';
export type { StopOutcome } from './core/stop-outcome.js';
