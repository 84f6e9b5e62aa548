/**
 * Errors thrown by `RedisStore`. Every store method rejects with one of these, never
 * with a raw node-redis error, so the layer above can tell "retry later" from "bug".
 */

import { storeErrorBase, storeErrorKinds } from '../server/store/store-errors.js';

/**
 * The base class: a store call failed. `cause` keeps what node-redis threw. Its `code`
 * says whether a retry may help (PROTOCOL.md § 10.4): this class is a permanent failure
 * (`store-failed`: `WRONGTYPE`, `NOPERM`, a script error) that the handler answers 500.
 */
export class RedisStoreError extends storeErrorBase('RedisStoreError') {}

const kinds = storeErrorKinds(RedisStoreError, 'Redis');

/**
 * Redis could not be reached, did not answer within `commandTimeoutMs`, or answered
 * with a transient state (LOADING, BUSY, CLUSTERDOWN, TRYAGAIN, MASTERDOWN, READONLY, OOM).
 * Nothing was run; the same request may be retried with the same ID: the handler wraps
 * it in its `StoreUnavailableError` and answers 503 with `Retry-After`.
 */
export class RedisStoreUnavailableError extends kinds.Unavailable {}

/** Redis answered something a store script never returns: a corrupt or foreign record. */
export class RedisStoreReplyError extends kinds.Reply {}

/** The store was closed (the app is shutting down): another instance may serve the retry. */
export class RedisStoreClosedError extends kinds.Closed {}

/** Error replies a retry may cure (a loading, busy, failing-over or overloaded server); every other reply is permanent. */
const TRANSIENT_REPLIES = /^(LOADING|BUSY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY|OOM|NOREPLICAS|MISCONF|MOVED|ASK)\b/;

/** True for a Redis error reply (node-redis `ErrorReply`), as opposed to a client or network error. */
export function isErrorReply(error: unknown): error is Error {
  for (let proto: unknown = error; proto != null; proto = Object.getPrototypeOf(proto)) {
    const ctor = (proto as { constructor?: { name?: unknown } }).constructor;
    if (Object.hasOwn(proto as object, 'constructor') && ctor?.name === 'ErrorReply') return true;
  }
  return false;
}

/** Wraps anything node-redis threw into the store's error classes. */
export function toStoreError(error: unknown, operation: string): RedisStoreError {
  if (error instanceof RedisStoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (isErrorReply(error) && !TRANSIENT_REPLIES.test(message)) {
    return new RedisStoreError(`answer-once/redis: ${operation} failed: ${message}`, { cause: error });
  }
  return new RedisStoreUnavailableError(`answer-once/redis: ${operation}: Redis unavailable (${message})`, {
    cause: error,
  });
}
