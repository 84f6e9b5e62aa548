/**
 * The chat demo as a function: builds the page, opens the store, serves page and API
 * on ONE loopback port. `server.ts` is the command-line entry (`npm run demo`); the
 * browser end-to-end tests start that entry as a child process, as a visitor would.
 */
import type { AddressInfo } from 'node:net';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';
import { createChatApi } from './api.js';
import { FakeModel } from './fake-model.js';
import { buildPage, servePage } from './page.js';
import { openStore } from './store.js';

export interface DemoOptions {
  /**
   * TCP port; 0 picks a free one.
   * @default 5173
   */
  readonly port?: number;
  /**
   * Interface to listen on; loopback so nothing is exposed by accident.
   * @default '127.0.0.1'
   */
  readonly hostname?: string;
  /**
   * How long the fake model takes per answer, in milliseconds.
   * @default 2000
   */
  readonly modelDelayMs?: number;
  /**
   * A Redis URL: when set, intents live in Redis (`answer-once/redis`), else in memory.
   * @default undefined
   */
  readonly redisUrl?: string;
}

export interface RunningDemo {
  readonly url: string;
  readonly storeLabel: string;
  close(): Promise<void>;
}

export async function startDemo(options: DemoOptions = {}): Promise<RunningDemo> {
  const { port = 5173, hostname = '127.0.0.1', modelDelayMs = 2000, redisUrl } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError('chat demo: `port` (PORT) must be an integer from 0 to 65535.');
  }
  const model = new FakeModel({ delayMs: modelDelayMs });
  const [assets, store] = await Promise.all([buildPage(), openStore(redisUrl)]);
  const api = createChatApi({ model, store: store.store });

  const server = createAdaptorServer({
    hostname,
    // An HTTP/1.1 server (no http2 option), so the bindings are node:http's.
    fetch: (request, env) =>
      new URL(request.url).pathname.startsWith('/api/') ? api(request, env as HttpBindings) : servePage(assets, request),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return {
    url: `http://${host}:${bound}/`,
    storeLabel: store.label,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      await store.close();
    },
  };
}
