/**
 * Each client's sends, by client: how a capability handed in after the client was made
 * (`answerOnceTransport`'s streaming and stop, `SendController`'s stop) builds on it
 * without the client importing it.
 */
import type { StopDeps } from './stop/stop.js';
import type { StreamingDeps } from './stream/streaming.js';

/** What a capability builds on: the client's sends, its ky instance, its stopped intents. */
export type ClientInternals = StreamingDeps & StopDeps;

export const clientInternals: WeakMap<object, ClientInternals> = /* @__PURE__ */ new WeakMap();
