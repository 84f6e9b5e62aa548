/**
 * `answer-once/server/node`: serves a Fetch-API handler (such as the one
 * `createIdempotencyHandler` returns) on `node:http`, through `@hono/node-server`'s
 * request listener, which does the Request/Response plumbing.
 *
 * @module answer-once/server/node
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer, getRequestListener } from '@hono/node-server';
import { functionOption, numberOption, optionsObject, stringOption } from '../core/options.js';
import { problemResponse } from './problem.js';

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
  /**
   * Called with anything `handle` threw (the caller then gets a bare problem+json 500,
   * `internal-error`, with no internal text), so no failure is silent.
   * @default logs it with `console.error`
   */
  onError?: (error: unknown, request: Request) => void;
}

/** A running server. */
export interface ServedHandler {
  /** The server's base URL, e.g. `http://127.0.0.1:53124`. */
  readonly url: string;
  /** Stops accepting connections, ends open ones (held long-polls too) and resolves when closed. */
  close(): Promise<void>;
}

/** The defaults of {@link ServeOptions}. */
const SERVE_DEFAULTS = Object.freeze({
  port: 0,
  hostname: '127.0.0.1',
  onError: (error: unknown): void => console.error('answer-once/server/node: the handler threw', error),
});

interface ResolvedServeOptions {
  readonly port: number;
  readonly hostname: string;
  readonly onError: (error: unknown, request: Request) => void;
}

function normalizeServeOptions(given: ServeOptions | undefined): ResolvedServeOptions {
  const options = optionsObject(given, 'serve() options');
  return {
    port: numberOption(options.port ?? SERVE_DEFAULTS.port, 'port', { max: 65_535 }),
    hostname: stringOption(
      options.hostname ?? SERVE_DEFAULTS.hostname,
      'hostname',
      'a non-empty string',
      (name) => name !== '',
    ),
    onError: functionOption(options.onError ?? SERVE_DEFAULTS.onError, 'onError', false),
  };
}

/** `handle`, with whatever it throws reported to `onError` and answered as a bare 500 problem. */
function guarded(handle: FetchHandler, onError: ResolvedServeOptions['onError']): (request: Request) => Promise<Response> {
  return async function serveRequest(request: Request): Promise<Response> {
    try {
      return await handle(request);
    } catch (error) {
      try {
        onError(error, request);
      } catch {
        // A failing error hook must not take the answer with it.
      }
      return problemResponse('internal-error', { title: 'answer-once: the server failed to answer.' });
    }
  };
}

/** Turns `handle` into a listener for `http.createServer(listener)` or an Express/Connect app. */
export function toNodeListener(handle: FetchHandler): NodeListener {
  return getRequestListener((request) => handle(request));
}

/** Serves `handle` on `node:http`; resolves once the server listens. */
export async function serve(handle: FetchHandler, options?: ServeOptions): Promise<ServedHandler> {
  const { port, hostname, onError } = normalizeServeOptions(options);
  // Without a `createServer` option the adaptor always builds a `node:http` server.
  const server = createAdaptorServer({ fetch: guarded(handle, onError), hostname }) as Server;
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
