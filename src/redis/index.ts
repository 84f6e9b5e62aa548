/**
 * `answer-once/redis`: the store for many server instances sharing one Redis (standalone
 * or Cluster), over the official `redis` client (an optional peer dependency).
 *
 * @module answer-once/redis
 */

export type {
  RedisBufferTypeMapping,
  RedisMessageListener,
  RedisScriptCall,
  RedisScriptRunner,
  RedisStoreClient,
  RedisStoreSubscriber,
} from './client.js';
export {
  RedisStoreClosedError,
  RedisStoreError,
  RedisStoreReplyError,
  RedisStoreUnavailableError,
} from './errors.js';

export type { RedisStoreOptions } from './options.js';
export { RedisStore } from './store.js';
