/**
 * `answer-once/postgres`: the store for many server instances sharing one PostgreSQL —
 * records and answer logs — over node-postgres (`pg`, an optional peer dependency).
 *
 * @module answer-once/postgres
 */

export type {
  PostgresClient,
  PostgresNotification,
  PostgresPool,
  PostgresQueryable,
  PostgresQueryResult,
} from './client.js';
export {
  PostgresStoreClosedError,
  PostgresStoreError,
  PostgresStoreReplyError,
  PostgresStoreUnavailableError,
} from './errors.js';
export type { PostgresStoreOptions } from './options.js';
export { postgresStoreSchema } from './sql/schema.js';
export { PostgresStore } from './store.js';
