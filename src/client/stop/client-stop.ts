/**
 * `client.stop` whether or not the client was made with `stopping`: what
 * `answerOnceTransport` and `SendController` stop with, so their stop works on
 * `createClient()` and an app carries the stop modules only because it imports one of
 * them (as `streamingOpen` does for streaming).
 */
import { clientInternals } from '../internals.js';
import { createStop, type Stop } from './stop.js';

/** A client's `stop`; another object's own `stop` as it is (`undefined` when it has none). */
export function clientStop<S extends Stop | undefined>(client: { readonly stop?: S }): Stop | S {
  const deps = clientInternals.get(client);
  return deps ? createStop(deps) : (client.stop as S);
}
