/**
 * The client's own open of one streamed intent — what `client.fetch` is built on —
 * whether or not the client was made with `streaming`: what `answerOnceTransport` sends
 * with, so `answerOnceTransport({ client: createClient() })` streams and an app carries
 * the streaming modules only because it imports the transport. Unlike `client.fetch`, an
 * error answer rejects as `send` does (the client's own error, not a `Response` rebuilt
 * from it for the caller to read again).
 */
import { clientInternals } from '../internals.js';
import { openAnswer } from './intent-fetch.js';

/** One request of intent `requestId`; `headers` without the ID (the client adds it). */
interface IntentRequest {
  readonly method: 'GET' | 'POST';
  readonly headers: Headers;
  readonly body?: string;
  readonly requestId: string;
}

/** Sends `request` to `url`; resolves with the answer, its body resumable. Rejects as `send` does. */
export type OpenIntent = (url: string, request: IntentRequest) => Promise<Response>;

/** `client`'s open of a streamed intent; `undefined` for an object `createClient` did not make. */
export function streamingOpen(client: object): OpenIntent | undefined {
  const deps = clientInternals.get(client);
  return deps && (async (url, request) => (await openAnswer(deps, url, url, request)).response);
}
