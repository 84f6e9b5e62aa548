/**
 * The slice of node-postgres that `PostgresStore` uses, as structural types: a `pg.Pool`
 * fits, and so does any pool with its API (e.g. `@neondatabase/serverless`'s `Pool`), so
 * `pg` stays a type-free, optional peer.
 */

/** A query's answer: its rows (columns by name). */
export interface PostgresQueryResult {
  readonly rows: readonly Record<string, unknown>[];
}

/** One NOTIFY as node-postgres delivers it. */
export interface PostgresNotification {
  readonly channel: string;
  readonly payload?: string;
}

/** What runs one statement: a pool (any connection) or one connection. */
export interface PostgresQueryable {
  query(text: string, values?: unknown[]): Promise<PostgresQueryResult>;
}

/**
 * A connection held out of the pool: the one the store `LISTEN`s on (with
 * `notifications: true`), released with an error when it breaks so the pool drops it.
 */
export interface PostgresPoolClient extends PostgresQueryable {
  on(event: 'notification', listener: (message: PostgresNotification) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  removeAllListeners(event?: string): unknown;
  release(error?: Error | boolean): void;
}

/**
 * What `PostgresStore` needs from the pool you pass: `new pg.Pool(…)`. The store never
 * ends or reconfigures it; with `notifications: true` it holds one of its connections.
 */
export interface PostgresPool extends PostgresQueryable {
  connect(): Promise<PostgresPoolClient>;
}
