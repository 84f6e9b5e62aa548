/**
 * Each client's sends, by client: how a capability handed in after the client was made
 * (`answerOnceTransport`'s streaming) builds on it without the client importing it.
 */
import type { StreamingDeps } from './stream/streaming.js';

export const clientInternals: WeakMap<object, StreamingDeps> = /* @__PURE__ */ new WeakMap();
