/**
 * `streaming`: what `client.fetch` and `client.stream` are built from — the resumable
 * body, SSE positions, stream parts and their parser. The client takes it as an option
 * (`createClient({ streaming })`) and never imports it, so an app that only sends JSON
 * bundles none of it; an app that streams has it in its first bundle (no lazy chunk: a
 * send made offline must never need the network for code).
 */
import { newRequestId } from '../../core/ids.js';
import type { SendEventListener } from '../events.js';
import type { Streaming } from '../extensions.js';
import type { SendOptions } from '../send/send-options.js';
import { storedRequest } from '../storage/persist.js';
import type { StoredIntent } from '../storage/types.js';
import { type AnswerStream, answerStream } from './answer-stream.js';
import { createIntentFetch, type IntentFetchDeps, openAnswer } from './intent-fetch.js';

/** Options of `client.stream()`: `send`'s, but the body is always yours to iterate. */
export type StreamOptions = Omit<SendOptions, 'parse'>;

/** What a client hands `streaming`: its sends, and its checks of a stored intent. */
export interface StreamingDeps extends IntentFetchDeps {
  /** Throws `StoredIntentError` (once) for a record the client may not send again. */
  readonly checkStored: (stored: StoredIntent, listener: SendEventListener | undefined) => Promise<void>;
  /** Marks a stored intent sent again (a stopped one stays kept until its replay). */
  readonly resent: (stored: StoredIntent) => void;
}

/** The client methods `streaming` builds. */
export interface StreamingMethods {
  readonly fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  readonly stream: (input: string | URL | StoredIntent, options?: StreamOptions) => Promise<AnswerStream>;
}

/** The streaming capability, as the client calls it (`Streaming` names it to the options). */
export interface StreamingCapability {
  /** Builds one client's `fetch` and `stream` over its sends. */
  readonly attach: (deps: StreamingDeps) => StreamingMethods;
}

const capability: StreamingCapability = {
  attach(deps) {
    async function stream(input: string | URL | StoredIntent, options: StreamOptions = {}): Promise<AnswerStream> {
      const { signal, onEvent } = options;
      if (typeof input === 'object' && !(input instanceof URL)) {
        await deps.checkStored(input, onEvent);
        // A stored intent goes again exactly as it first left (see `client.resend`).
        deps.resent(input);
        const opened = await openAnswer(deps, new URL(input.url), input.input, {
          ...storedRequest(input),
          requestId: input.requestId,
          ...(signal && { signal }),
          ...(onEvent && { onEvent }),
        });
        return answerStream(opened);
      }
      const requestId = options.requestId ?? newRequestId();
      return answerStream(await openAnswer(deps, input, String(input), { ...options, requestId }));
    }
    return { fetch: createIntentFetch(deps), stream };
  },
};

/**
 * What `client.fetch` and `client.stream` are built from: hand it to the client,
 * `createClient({ streaming })`. An app that does not import it bundles none of it.
 */
export const streaming: Streaming = capability;
