/**
 * `answer-once/server/node`: serves a Fetch-API handler (such as the one
 * `createIdempotencyHandler` returns) on `node:http`, through `@hono/node-server`'s
 * request listener, which does the Request/Response plumbing.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer, getRequestListener } from '@hono/node-server';

/** Anything that answers a `Request` with a `Response`. */
export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** A `node:http` request listener. */
export type NodeListener = (incoming: IncomingMessage, outgoing: ServerResponse) => Promise<void>;

/** Options of {@link serve}. */
export interface ServeOptions {
  /**
   * The TCP port; `0` picks a free one (read it back from `url`).
   * @default 0
   */
  port?: number;
  /**
   * The interface to listen on. Loopback by default, so nothing is exposed by accident.
   * @default '127.0.0.1'
   */
  hostname?: string;
}

/** A running server. */
export interface ServedHandler {
  /** The server's base URL, e.g. `http://127.0.0.1:53124`. */
  readonly url: string;
  /** Stops accepting connections, ends open ones (held long-polls too) and resolves when closed. */
  close(): Promise<void>;
}

interface ResolvedServeOptions {
  readonly port: number;
  readonly hostname: string;
}

export function normalizeServeOptions(options: ServeOptions = {}): ResolvedServeOptions {
  const { port = 0, hostname = '127.0.0.1' } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new TypeError('answer-once: `port` must be an integer from 0 to 65535.');
  }
  if (typeof hostname !== 'string' || hostname === '') {
    throw new TypeError('answer-once: `hostname` must be a non-empty string.');
  }
  return { port, hostname };
}

/** Turns `handle` into a listener for `http.createServer(listener)` or an Express/Connect app. */
export function toNodeListener(handle: FetchHandler): NodeListener {
  return getRequestListener((request) => handle(request));
}

/** Serves `handle` on `node:http`; resolves once the server listens. */
export async function serve(handle: FetchHandler, options?: ServeOptions): Promise<ServedHandler> {
  const { port, hostname } = normalizeServeOptions(options);
  const server = createAdaptorServer({ fetch: (request: Request) => handle(request), hostname });
  if (!('closeAllConnections' in server)) throw new TypeError('answer-once: expected a node:http server.');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, hostname, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return {
    url: `http://${host}:${bound}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
