/**
 * What a stop found (PROTOCOL.md § 14.8), the same three cases on both sides: a store's
 * `stop` returns it, the stop route answers it, `client.stop()` reads it back.
 * - `stopping`: the generation was running and is told to stop; its answer ends with
 *   the partial text (and, for an event stream, the `stopped` part);
 * - `settled`: it had already ended (answered or failed): nothing changed;
 * - `unknown`: there is no such intent in this scope (404 `intent-not-found`).
 */
export type StopOutcome = 'stopping' | 'settled' | 'unknown';
