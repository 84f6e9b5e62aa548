/**
 * The AI SDK demo as a function: builds the page and serves it with the API on ONE
 * loopback port. `server.ts` is the command line (`npm run demo:ai-sdk`); the browser
 * end-to-end tests start that entry as a child process, as a visitor would.
 */
import type { AddressInfo } from 'node:net';
import { createAdaptorServer, type HttpBindings } from '@hono/node-server';
import { MemoryStore } from 'answer-once/server';
import { createChatApi } from './api.js';
import { DemoModel } from './model.js';
import { buildPage, servePage } from './page.js';

export interface AiSdkDemoOptions {
  /** TCP port; 0 picks a free one. @default 5174 */
  readonly port?: number;
  /** Interface to listen on: loopback, so nothing is exposed by accident. @default '127.0.0.1' */
  readonly hostname?: string;
  /** The mock model's delay per token, ms. @default 60 */
  readonly tokenDelayMs?: number;
}

export async function startAiSdkDemo(options: AiSdkDemoOptions = {}) {
  const { port = 5174, hostname = '127.0.0.1', tokenDelayMs = 60 } = options;
  const model = new DemoModel(tokenDelayMs);
  const store = new MemoryStore();
  const api = createChatApi({ model, store });
  const assets = await buildPage();
  const server = createAdaptorServer({
    hostname,
    fetch: (request, env) =>
      new URL(request.url).pathname.startsWith('/api/') ? api(request, env as HttpBindings) : servePage(assets, request),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => resolve());
  });
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      });
      await store.close?.();
    },
  };
}
