/**
 * `client.fetch` with streaming, whether or not the client was made with it: what
 * `answerOnceTransport` sends with, so `answerOnceTransport({ client: createClient() })`
 * streams and an app carries the streaming modules only because it imports the transport.
 */
import { clientInternals } from '../internals.js';
import { createIntentFetch } from './intent-fetch.js';
import type { StreamingMethods } from './streaming.js';

/** A client's `fetch`, streaming; another object's own `fetch` as it is. */
export function streamingFetch(client: { readonly fetch: StreamingMethods['fetch'] }): StreamingMethods['fetch'] {
  const deps = clientInternals.get(client);
  return deps ? createIntentFetch(deps) : client.fetch;
}
