/**
 * Errors thrown by `PostgresStore`. Every store method rejects with one of these, never
 * with a raw node-postgres error, so the layer above can tell "retry later" from "bug".
 */

import { storeErrorBase, storeErrorKinds } from '../server/store/store-errors.js';

/**
 * The base class: a store call failed. `cause` keeps what node-postgres threw. Its `code`
 * says whether a retry may help (PROTOCOL.md § 10.4): this class is a permanent failure
 * (`store-failed`: a missing table with `createTables: false`, no permission, a
 * constraint) that the handler answers 500.
 */
export class PostgresStoreError extends storeErrorBase('PostgresStoreError') {}

const kinds = storeErrorKinds(PostgresStoreError, 'Postgres');

/**
 * PostgreSQL could not be reached, dropped the connection, or answered with a transient
 * state (shutting down, starting up, too many connections, a serialization failure or
 * deadlock, a statement cancelled by a timeout). The same request may be retried with
 * the same ID: the handler answers 503 with `Retry-After`.
 */
export class PostgresStoreUnavailableError extends kinds.Unavailable {}

/** PostgreSQL answered something the store's statements never return: a corrupt or foreign row. */
export class PostgresStoreReplyError extends kinds.Reply {}

/** The store was closed (the app is shutting down): another instance may serve the retry. */
export class PostgresStoreClosedError extends kinds.Closed {}

/**
 * SQLSTATEs a retry may cure: connection exceptions (08), insufficient resources (53),
 * operator intervention (57: admin shutdown, crash shutdown, cannot connect now, query
 * cancelled), serialization failure and deadlock (40001, 40P01), lock not available
 * (55P03), and a read-only standby after a failover (25006).
 */
const TRANSIENT = /^(08|53|57|40001$|40P01$|55P03$|25006$)/;

/** Wraps anything node-postgres threw into the store's error classes. */
export function toStoreError(error: unknown, operation: string): PostgresStoreError {
  if (error instanceof PostgresStoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const sqlState = (error as { code?: unknown } | null)?.code;
  // A SQLSTATE is five characters; anything else (ECONNREFUSED, a thrown "Connection
  // terminated") is the network's, so transient.
  if (typeof sqlState === 'string' && /^[0-9A-Z]{5}$/.test(sqlState) && !TRANSIENT.test(sqlState)) {
    return new PostgresStoreError(`answer-once/postgres: ${operation} failed: ${message} (${sqlState})`, { cause: error });
  }
  return new PostgresStoreUnavailableError(`answer-once/postgres: ${operation}: PostgreSQL unavailable (${message})`, {
    cause: error,
  });
}
