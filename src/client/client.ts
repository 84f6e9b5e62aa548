/**
 * `createClient()`: intents over a ky instance. `send()` is one user intent (one ID for
 * every attempt and poll); `resume()` finishes the intents a previous page left pending.
 */
import type { KyInstance } from 'ky';
import { newRequestId } from '../core/ids.js';
import { AbortError } from './errors/abort-error.js';
import type { SendEvent, SendEventListener } from './events.js';
import { type ClientInternals, clientInternals } from './internals.js';
import { type ClientOptions, normalizeClientOptions } from './options.js';
import { createJoiner, notify } from './send/join.js';
import { runIntent, type SendResult } from './send/run-intent.js';
import { type NormalizedSendOptions, normalizeSendOptions, type SendOptions } from './send/send-options.js';
import type { Stop, StopOptions, StoppingCapability, StopResult } from './stop/stop.js';
import type { Persist } from './storage/persist.js';
import type { ResumeOptions, ResumeOutcome, Resuming, ResumingDeps } from './storage/resuming.js';
import type { StorageAdapter, StoredIntent } from './storage/types.js';
import type { AnswerStream } from './stream/answer-stream.js';
import type { DispatchInternals } from './stream/intent-fetch.js';
import type { StreamingCapability, StreamingMethods, StreamOptions } from './stream/streaming.js';

export interface AnswerOnceClient {
  /** Sends one user intent; retries, polls and resends all carry the same ID. */
  send<TData = unknown>(input: string | URL, options?: SendOptions): Promise<SendResult<TData>>;
  /** Finishes every pending intent in `storage` with its original ID (none without storage). */
  resume<TData = unknown>(options?: ResumeOptions): Promise<ResumeOutcome<TData>[]>;
  /**
   * The oldest pending intent sent to `input` (as given to `send` or `fetch`), as it was
   * stored; with `match`, the oldest of those `match` accepts.
   */
  pending(input: string, match?: (intent: StoredIntent) => boolean): Promise<StoredIntent | undefined>;
  /**
   * Sends a stored intent again exactly as it first left — its URL (query included),
   * method, headers, body and ID — so the server recognises it and replays its answer.
   * What `resume()` does for each pending intent.
   */
  resend<TData = unknown>(intent: StoredIntent, options?: ResumeOptions): Promise<SendResult<TData>>;
  /**
   * `fetch`, bound to the client: each call is one intent (a new ID, or the one in the
   * request's ID header) sent as `send` sends it — retries, 202 polls, deadline,
   * storage — and resolves with a real `Response` whose body resumes itself when its
   * connection drops (PROTOCOL.md § 14.5). Hand it to any SDK that takes a `fetch`.
   * Like `fetch`, it resolves with an error status (the SDK makes its own error) and
   * rejects only when no answer came: `ConnectionError`, `AbortError`,
   * `DeadlineExceededError`. Needs `createClient({ streaming })`; without it, rejects with
   * a `TypeError` naming the option.
   */
  readonly fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /**
   * Sends one intent as `send` does and resolves, once the answer's headers arrive, with
   * its body as an async iterable of parts (text, SSE events, restart, stopped) that
   * resumes itself after a cut; with a `StoredIntent` (`pending()`), sends it again
   * exactly as it first left. Rejects as `send` does. Needs `createClient({ streaming })`;
   * without it, rejects with a `TypeError` naming the option.
   */
  stream(input: string | URL | StoredIntent, options?: StreamOptions): Promise<AnswerStream>;
  /**
   * Stops the intent's generation on the server (`DELETE <status route>/<id>`,
   * PROTOCOL.md § 14.8): its answer ends with the partial text produced so far, stored
   * and replayed, and the model never runs again for it. The intent stays in `storage`
   * (`stopped: true`) so a reload resumes it and shows that partial answer; it leaves
   * when a replay of it has been read, or when a new intent is sent to the same input.
   * The status route: `statusUrl(id)` when set, else `/api/status/<id>` on the intent's
   * origin. Resolves with what the server did: `stopping`, `settled`, `unknown`. Needs
   * `createClient({ stopping })`; without it, rejects with a `TypeError` naming the option.
   */
  stop(intent: string | StoredIntent, options?: StopOptions): Promise<StopResult>;
  /** The ky instance the client sends with (the base instance, extended). */
  readonly ky: KyInstance;
}

/**
 * The request's headers: `init`, the ID header (always ours), and a JSON content type
 * unless one is set. Without `init` (the usual send) a plain object, which ky merges
 * cheaply.
 */
function requestHeaders(init: HeadersInit | undefined, ids: Record<string, string>, json: boolean): HeadersInit {
  if (init === undefined) return json ? { 'content-type': 'application/json', ...ids } : ids;
  const headers = new Headers(init);
  for (const [name, value] of Object.entries(ids)) headers.set(name, value);
  if (json && !headers.has('content-type')) headers.set('content-type', 'application/json');
  return headers;
}

/** `fetch` and `stream` of a client made without `streaming`, `stop` without `stopping`: they name the option. */
const withoutStreaming: StreamingMethods = {
  fetch: () => missing('fetch', 'streaming'),
  stream: () => missing('stream', 'streaming'),
};
const withoutStopping: Stop = () => missing('stop', 'stopping');

async function missing(method: string, option: string): Promise<never> {
  throw new TypeError(
    `answer-once: \`client.${method}\` needs a client made with \`${option}\`: createClient({ ${option} }), \`${option}\` imported from 'answer-once'.`,
  );
}

/**
 * A client given neither `storage` nor an outbox keeps no records: nothing to resume,
 * nothing pending, and a stored intent is not its to send (it could not check it).
 */
const refuseStored = async (): Promise<never> => {
  throw new TypeError(
    'answer-once: only a client with `storage` checks and sends a stored intent: createClient({ storage }).',
  );
};

export function createClient(clientOptions: ClientOptions = {}): AnswerOnceClient {
  const options = normalizeClientOptions(clientOptions);
  // The parent instance's own `fetch` (if any) is what the client's fetch wraps, and its
  // `stringifyJson` what serialises a `json` body (once per intent, replayed as is).
  let { fetch: baseFetch, stringifyJson, baseUrl } = options.kyOptions;
  const instance = options.ky.extend((defaults) => {
    baseFetch ??= defaults.fetch;
    stringifyJson ??= defaults.stringifyJson;
    baseUrl ??= defaults.baseUrl;
    return options.kyOptions;
  });
  const join = createJoiner<SendResult>((signal, progress) => new AbortError(progress, signal.reason));
  const { storage, outbox } = options;
  // What the client does with stored intents comes with the storage adapter or the outbox
  // (`storage/resuming.ts`): a client given neither bundles none of it.
  const resuming = ((storage as StorageAdapter | undefined) ?? outbox)?.resuming as
    | ((deps: ResumingDeps) => Resuming)
    | undefined;
  const stored = resuming?.({
    storage,
    outbox,
    baseUrl: () => baseUrl,
    emitter,
    dispatch,
  });

  /** Reports to the client's `onEvent` and `listener`; nobody listening, no emitter, so no event object is ever built. */
  function emitter(listener: SendEventListener | undefined): ((event: SendEvent) => void) | undefined {
    const { onEvent } = options;
    return onEvent || listener
      ? (event) => {
          notify(onEvent, event);
          notify(listener, event);
        }
      : undefined;
  }

  async function run(
    requestId: string,
    input: string | URL,
    label: string,
    send: NormalizedSendOptions,
    signal: AbortSignal | undefined,
    listener: SendEventListener | undefined,
    internal: DispatchInternals,
  ): Promise<SendResult> {
    const emit = emitter(listener);
    const json = send.json !== undefined;
    const body = json ? (stringifyJson ?? JSON.stringify)(send.json) : send.body;
    const headers = requestHeaders(send.headers, options.idHeaders(requestId), json);
    const attempt = (fetch: typeof baseFetch, persist?: Persist) =>
      runIntent(options, instance, fetch, {
        requestId,
        input,
        method: send.method,
        body,
        headers,
        searchParams: send.searchParams,
        parse: send.parse ?? options.parse,
        signal,
        emit,
        persist,
      });
    try {
      // Storage writes the intent before it leaves; with an outbox, a send that finds no
      // network waits there for it (a position reconnect of a body already read never
      // does: its intent went out).
      const result = stored
        ? await stored.carry(
            requestId,
            label,
            send.headers,
            internal.persist !== false,
            signal ?? options.signal,
            emit,
            baseFetch,
            attempt,
          )
        : await attempt(baseFetch);
      // A streamed body (client.fetch) settles when it ends, not when its headers arrive.
      if (internal.bodyPending) return result;
      emit?.({
        type: 'settled',
        requestId,
        outcome: 'answered',
        replayed: result.replayed,
        attempts: result.attempts,
        polls: result.polls,
      });
      await stored?.forget(requestId, result.replayed);
      return result;
    } catch (error) {
      if (internal.reconnect) throw error;
      const { attempts = 0, polls = 0 } = error as { attempts?: number; polls?: number };
      emit?.({ type: 'settled', requestId, outcome: 'failed', error: error as Error, attempts, polls });
      await stored?.forgetFailed(requestId, error);
      throw error;
    }
  }

  function send<TData>(input: string | URL, sendOptions?: SendOptions): Promise<SendResult<TData>> {
    return dispatch<TData>(input, String(input), sendOptions);
  }

  async function dispatch<TData>(
    input: string | URL,
    label: string,
    sendOptions?: SendOptions,
    internal: DispatchInternals = {},
  ): Promise<SendResult<TData>> {
    const call = normalizeSendOptions(sendOptions);
    const requestId = call.requestId ?? newRequestId();
    // A resume (`persist: false`) resends the body its first attempt already passed here.
    stored?.refuse(call.body, requestId);
    const start = (signal: AbortSignal | undefined, listener: SendEventListener | undefined) =>
      run(requestId, input, label, call, signal, listener, internal);
    // client.fetch never joins: each call owns its Response's body (the server attaches it).
    const key = internal.bodyPending ? undefined : call.joinKey;
    return join(key, requestId, start, call.signal, call.onEvent) as Promise<SendResult<TData>>;
  }

  // Stopping and streaming are capabilities the app hands in (`stopping`, `streaming`): the
  // client never imports them, so a client that sends JSON bundles neither, and neither is
  // a lazy chunk.
  const deps: ClientInternals = {
    clientOptions: options,
    ky: instance,
    stopped: stored?.stopped,
    dispatch,
    forget: async (requestId, replayed) => stored?.forget(requestId, replayed),
    checkStored: stored?.checkStored ?? refuseStored,
    resent: (intent) => stored?.stopped.resent(intent),
  };
  const stop = (options.stopping as StoppingCapability | undefined)?.attach(deps) ?? withoutStopping;

  const capability = options.streaming as StreamingCapability | undefined;
  const { fetch, stream } = capability?.attach(deps) ?? withoutStreaming;
  // Without storage (or an outbox): nothing to resume or find, and no stored intent to send.
  const {
    resume = async () => [],
    pending = async () => undefined,
    resend = refuseStored,
  } = (stored ?? {}) as Partial<Pick<AnswerOnceClient, 'resume' | 'pending' | 'resend'>>;
  const client: AnswerOnceClient = { send, fetch, stream, stop, resume, pending, resend, ky: instance };
  clientInternals.set(client, deps);
  return client;
}
