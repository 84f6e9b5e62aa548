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
 * One connection of the store's own, outside the pool: the one it `LISTEN`s on (with
 * `notifications: true`) while requests wait, ended when none has waited for a while or
 * when it breaks. A `pg.Client`.
 */
export interface PostgresClient extends PostgresQueryable {
  connect(): Promise<unknown>;
  end(): Promise<unknown>;
  on(event: 'notification', listener: (message: PostgresNotification) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  removeAllListeners(event?: string): unknown;
}

/**
 * What `PostgresStore` needs from the pool you pass: `new pg.Pool(…)`. The store never
 * ends, reconfigures or holds it: every statement borrows a connection for itself alone,
 * so a pool of any size (`max: 1` included) serves the store.
 */
export interface PostgresPool extends PostgresQueryable {
  /**
   * The class the pool makes its connections of (`pg.Pool` and Neon's `Pool` have it): the
   * store opens its listening connection with it and `options`, so that connection is
   * never one of the pool's. A pool without it cannot wake waiters: they poll.
   */
  readonly Client?: new (
    options: never,
  ) => PostgresClient;
  /** The options the pool makes its connections with (`pg.Pool`'s own). */
  readonly options?: object;
}
