/**
 * The one way a spec gets Redis: `useRedisSuite()` inside the suite's `describe` starts a
 * real `redis-server` (or a 3-master Cluster) before the first test and stops it after the
 * last. Connections and stores a test opens (each its own, as another process would have)
 * are closed after that test; `client` is one connection for the whole suite.
 *
 *   const hasRedis = requireRedisServer();
 *   describe.skipIf(!hasRedis)('…', () => {
 *     const redis = useRedisSuite();
 *     it('…', async () => { const store = await redis.open(); … });
 *   });
 */
import { randomUUID } from 'node:crypto';
import { RedisStore, type RedisStoreClient, type RedisStoreOptions } from 'answer-once/redis';
import { createClient, createCluster } from 'redis';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { RedisClusterServer, RedisServer, rawCommand } from './redis-server.js';
import { type CommandCalls, measureCalls } from './redis-stats.js';

interface Closable {
  readonly isOpen: boolean;
  close(): Promise<void>;
  destroy(): void;
}

/** A connection the suite opened: what `RedisStore` takes, and how to close it. */
type RedisConnection = RedisStoreClient & Closable & { readonly isReady: boolean };

export interface RedisSuiteOptions {
  /** Three masters joined as a Redis Cluster instead of one server. @default false */
  readonly cluster?: boolean;
  /** Persist with an append-only file, so a `server.restart()` keeps what was written. @default false */
  readonly appendonly?: boolean;
}

/** node-redis settings for a connection (on a Cluster, every node's). */
interface ConnectOptions {
  /** Fail a command at once while the connection is down instead of queueing it. @default false */
  readonly disableOfflineQueue?: boolean;
  readonly socket?: { readonly reconnectStrategy?: number | ((retries: number) => number) };
}

export interface RedisSuite {
  /** The suite's standalone redis-server (not on a Cluster suite). */
  readonly server: RedisServer;
  /** The suite's Cluster (only on a Cluster suite). */
  readonly cluster: RedisClusterServer;
  /** The redis:// URL of every server (a Cluster's nodes). */
  readonly urls: readonly string[];
  /** One connection for the whole suite, opened with the servers and closed after the last test. */
  readonly client: RedisConnection;
  /** Closes `client` after the test (unless the test closed it); returns it. */
  track<C extends Closable>(client: C): C;
  /** A new connection (a Cluster client on a Cluster suite), closed after the test. */
  connect(options?: ConnectOptions): Promise<RedisConnection>;
  /** A store over `options.client`, or over a new connection of its own; closed after the test. */
  open(options?: Partial<RedisStoreOptions>): Promise<RedisStore>;
  /** Sends `command` to every server (every master of a Cluster); their raw replies. */
  everyServer(command: string): Promise<string[]>;
  /** The commands Redis ran while `fn` ran, as Redis counts them (summed over a Cluster's masters). */
  calls(fn: () => Promise<unknown>): Promise<CommandCalls>;
}

/** A key of its own hash tag, in the handler's key format. */
export const newKey = (): string => `answer-once:{user:session:${randomUUID()}}`;

export function useRedisSuite(options: RedisSuiteOptions = {}): RedisSuite {
  let servers: RedisServer | RedisClusterServer | undefined;
  let shared: RedisConnection | undefined;
  const clients: Closable[] = [];
  const stores: RedisStore[] = [];

  const started = (): RedisServer | RedisClusterServer => {
    if (!servers) throw new Error('the suite’s Redis is not started yet');
    return servers;
  };
  const ports = (): number[] => {
    const running = started();
    return running instanceof RedisServer ? [running.port] : running.nodes.map((node) => node.port);
  };

  async function open(connect: ConnectOptions = {}): Promise<RedisConnection> {
    const running = started();
    const client =
      running instanceof RedisServer
        ? createClient({ url: running.url, ...connect })
        : createCluster({ rootNodes: running.rootNodes, defaults: connect });
    return client.on('error', () => {}).connect();
  }

  beforeAll(async () => {
    servers = options.cluster
      ? await RedisClusterServer.start()
      : await RedisServer.start({ appendonly: options.appendonly });
    shared = await open();
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    // A test may have closed one itself (a process going away).
    const open = clients.splice(0).filter((client) => client.isOpen);
    await Promise.all(open.map((client) => client.close().catch(() => client.destroy())));
  });

  afterAll(async () => {
    await shared?.close().catch(() => {});
    await servers?.stop();
  });

  const suite: RedisSuite = {
    get server() {
      const running = started();
      if (!(running instanceof RedisServer)) throw new Error('a Cluster suite has no single server');
      return running;
    },
    get cluster() {
      const running = started();
      if (!(running instanceof RedisClusterServer)) throw new Error('a standalone suite has no Cluster');
      return running;
    },
    get urls() {
      const running = started();
      return running instanceof RedisServer ? [running.url] : running.rootNodes.map((node) => node.url);
    },
    get client() {
      if (!shared) throw new Error('the suite’s Redis is not started yet');
      return shared;
    },
    track(client) {
      clients.push(client);
      return client;
    },
    connect: async (connect) => suite.track(await open(connect)),
    async open(storeOptions = {}) {
      const store = new RedisStore({ ...storeOptions, client: storeOptions.client ?? (await suite.connect()) });
      stores.push(store);
      return store;
    },
    everyServer: (command) => Promise.all(ports().map((port) => rawCommand(port, command))),
    calls: (fn) => measureCalls(ports(), fn),
  };
  return suite;
}
