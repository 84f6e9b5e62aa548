/**
 * The setup the RedisStore suites share: one `redis-server` for the suite, and stores
 * (each on a connection of its own, as another process would have) closed after each
 * test with their connections. Call it inside the suite's `describe`.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createClient } from 'redis';
import { RedisStore, type RedisStoreClient, type RedisStoreOptions } from 'answer-once/redis';
import { RedisServer } from './redis-server.js';
import { type CommandCalls, measureCalls } from './redis-stats.js';

interface Closable {
  close(): Promise<void>;
  destroy(): void;
}

export interface RedisSuite {
  /** The suite's redis-server (started before the first test). */
  readonly server: RedisServer;
  /** Closes `client` after the test; returns it. */
  track<C extends Closable>(client: C): C;
  /** A new connection, closed after the test. */
  connect(): Promise<RedisStoreClient>;
  /** A store over `options.client`, or over a new connection of its own; closed after the test. */
  open(options?: Partial<RedisStoreOptions>): Promise<RedisStore>;
  /** The commands Redis ran while `fn` ran, as Redis counts them. */
  calls(fn: () => Promise<unknown>): Promise<CommandCalls>;
}

/** A key of its own hash tag, in the handler's key format. */
export const newKey = (): string => `answer-once:{user:session:${randomUUID()}}`;

export function useRedisSuite(): RedisSuite {
  let server: RedisServer | undefined;
  const clients: Closable[] = [];
  const stores: RedisStore[] = [];

  beforeAll(async () => {
    server = await RedisServer.start();
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => client.destroy())));
  });

  afterAll(async () => {
    await server?.stop();
  });

  const suite: RedisSuite = {
    get server() {
      if (!server) throw new Error('the suite’s redis-server is not started yet');
      return server;
    },
    track(client) {
      clients.push(client);
      return client;
    },
    async connect() {
      const client = await createClient({ url: suite.server.url })
        .on('error', () => {})
        .connect();
      return suite.track(client);
    },
    async open(options = {}) {
      const store = new RedisStore({ ...options, client: options.client ?? (await suite.connect()) });
      stores.push(store);
      return store;
    },
    calls: (fn) => measureCalls([suite.server.port], fn),
  };
  return suite;
}
