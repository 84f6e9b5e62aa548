/**
 * The setup the UpstashStore suites share: one `redis-server` and one Upstash REST bridge
 * in front of it for the suite, and `@upstash/redis` clients of the bridge, each as
 * another instance (a serverless function, an isolate) would make its own.
 */

import { Redis, type RedisConfigNodejs } from '@upstash/redis';
import { UpstashStore, type UpstashStoreOptions } from 'answer-once/upstash';
import { afterAll, beforeAll } from 'vitest';
import { RedisServer } from './redis-server.js';
import { UpstashBridge } from './upstash-bridge.js';

export interface UpstashSuite {
  /** The suite's bridge (started before the first test): its REST calls are counted. */
  readonly bridge: UpstashBridge;
  readonly server: RedisServer;
  /** A new `@upstash/redis` client of the bridge; `options` as `new Redis()` takes them. */
  client(options?: Partial<RedisConfigNodejs>): Redis;
  /** A store over a client of its own. */
  open(options?: Partial<UpstashStoreOptions>): UpstashStore;
}

export function useUpstashSuite(): UpstashSuite {
  let server: RedisServer | undefined;
  let bridge: UpstashBridge | undefined;

  beforeAll(async () => {
    server = await RedisServer.start();
    bridge = await UpstashBridge.start(server.url);
  });

  afterAll(async () => {
    await bridge?.stop();
    await server?.stop();
  });

  const suite: UpstashSuite = {
    get bridge() {
      if (!bridge) throw new Error('the suite’s bridge is not started yet');
      return bridge;
    },
    get server() {
      if (!server) throw new Error('the suite’s redis-server is not started yet');
      return server;
    },
    client: (options = {}) =>
      new Redis({ url: suite.bridge.url, token: suite.bridge.token, enableTelemetry: false, ...options }),
    open: (options = {}) => new UpstashStore({ redis: suite.client(), ...options }),
  };
  return suite;
}
