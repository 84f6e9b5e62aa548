/**
 * The slice of node-redis that `RedisStore` uses, as structural types: a client from
 * `createClient()` (standalone, RESP2 or RESP3, any modules or type mapping) and a
 * cluster from `createCluster()` both fit, and `redis` stays a type-only, optional peer.
 */

/**
 * Keys and arguments of one script call: the record's key first (it picks the Cluster
 * node), the log's beside it on the same slot. Bytes go as Buffers, never as text.
 */
export interface RedisScriptCall {
  keys: string[];
  arguments: (string | Buffer)[];
}

/**
 * node-redis's type mapping that decodes RESP blob strings as Buffers
 * (`{ [RESP_TYPES.BLOB_STRING]: Buffer }`, where `RESP_TYPES.BLOB_STRING` is 36, `$`):
 * the log's bytes come back as they were appended, whatever they are.
 */
export interface RedisBufferTypeMapping {
  readonly 36: BufferConstructor;
}

/** What the store runs its log reads on: the client, decoding strings as Buffers. */
export interface RedisScriptRunner {
  evalSha(sha1: string, options: RedisScriptCall): Promise<unknown>;
  eval(script: string, options: RedisScriptCall): Promise<unknown>;
}

/** A message listener as node-redis calls it (string mode). */
export type RedisMessageListener = (message: string, channel: string) => unknown;

/**
 * The connection `RedisStore` subscribes on: `client.duplicate()`, so one per store.
 * Sharded pub/sub (`SSUBSCRIBE`, Redis ≥ 7) routes each channel to its key's shard on a
 * cluster and is plain pub/sub on a standalone server; the store's one stop channel is
 * plain pub/sub (`SUBSCRIBE`), which a cluster delivers from every node.
 */
export interface RedisStoreSubscriber {
  connect(): Promise<unknown>;
  subscribe(channels: string, listener: RedisMessageListener): Promise<void>;
  sSubscribe(channels: string, listener: RedisMessageListener): Promise<void>;
  sUnsubscribe(channels: string, listener?: RedisMessageListener): Promise<void>;
  close(): Promise<void>;
  destroy(): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'ready', listener: () => void): unknown;
  readonly isOpen: boolean;
}

/**
 * What `RedisStore` needs from the client you pass: a connected `createClient()` or
 * `createCluster()` instance. The store never connects, closes or reconfigures it.
 */
export interface RedisStoreClient extends RedisScriptRunner {
  duplicate(): RedisStoreSubscriber;
  /** The same client, decoding blob strings as Buffers (for the answer log's bytes). */
  withTypeMapping(mapping: RedisBufferTypeMapping): RedisScriptRunner;
}
