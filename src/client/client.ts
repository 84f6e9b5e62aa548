/**
 * `createClient()`: intents over a ky instance. `send()` is one user intent (one ID for
 * every attempt and poll); `resume()` finishes the intents a previous page left pending.
 */
import type { KyInstance } from 'ky';
import { newRequestId } from '../core/ids.js';
import { AbortError } from './errors/abort-error.js';
import { UnreplayableBodyError } from './errors/unreplayable-body-error.js';
import type { SendEvent, SendEventListener } from './events.js';
import { createJoiner, notify } from './join.js';
import { normalizeClientOptions, type ClientOptions } from './options.js';
import { runIntent, type SendResult } from './run-intent.js';
import { normalizeSendOptions, type NormalizedSendOptions, type SendOptions } from './send-options.js';
import { unstorableBodyKind } from './storable-body.js';
import type { StoredIntent } from './storage/types.js';

/** How one pending intent ended when `resume()` finished it. */
export type ResumeOutcome<TData = unknown> =
  | { readonly requestId: string; readonly input: string; readonly ok: true; readonly result: SendResult<TData> }
  | { readonly requestId: string; readonly input: string; readonly ok: false; readonly error: unknown };

/** Options of `client.resume()` and `client.resend()`. */
export interface ResumeOptions {
  /**
   * Stops every resumed intent.
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * Receives the events of every resumed intent.
   * @default undefined
   */
  onEvent?: SendEventListener;
}

export interface AnswerOnceClient {
  /** Sends one user intent; retries, polls and resends all carry the same ID. */
  send<TData = unknown>(input: string | URL, options?: SendOptions): Promise<SendResult<TData>>;
  /** Finishes every pending intent in `storage` with its original ID (none without storage). */
  resume<TData = unknown>(options?: ResumeOptions): Promise<ResumeOutcome<TData>[]>;
  /** The oldest pending intent sent to `input` (as given to `send`), as it was stored. */
  pending(input: string): Promise<StoredIntent | undefined>;
  /**
   * Sends a stored intent again exactly as it first left — its URL (query included),
   * method, headers, body and ID — so the server recognises it and replays its answer.
   * What `resume()` does for each pending intent.
   */
  resend<TData = unknown>(intent: StoredIntent, options?: ResumeOptions): Promise<SendResult<TData>>;
  /** The ky instance the client sends with (the base instance, extended). */
  readonly ky: KyInstance;
}

/**
 * The request's headers: `init`, the ID header (always ours), and a JSON content type
 * unless one is set. Without `init` (the usual send) a plain object, which ky merges
 * cheaply.
 */
function requestHeaders(init: HeadersInit | undefined, name: string, value: string, json: boolean): HeadersInit {
  if (init === undefined) return json ? { 'content-type': 'application/json', [name]: value } : { [name]: value };
  const headers = new Headers(init);
  headers.set(name, value);
  if (json && !headers.has('content-type')) headers.set('content-type', 'application/json');
  return headers;
}


export function createClient(options: ClientOptions = {}): AnswerOnceClient {
  const client = normalizeClientOptions(options);
  const { storage } = client;
  // The parent instance's own `fetch` (if any) is what the client's fetch wraps, and its
  // `stringifyJson` what serialises a `json` body (once per intent, replayed as is).
  let baseFetch = client.kyOptions.fetch;
  let stringifyJson = client.kyOptions.stringifyJson;
  const instance = client.ky.extend((defaults) => {
    baseFetch ??= defaults.fetch;
    stringifyJson ??= defaults.stringifyJson;
    return client.kyOptions;
  });
  const join = createJoiner<SendResult>((signal, progress) => new AbortError(progress, signal.reason));

  function persister(requestId: string, input: string, send: NormalizedSendOptions, body: BodyInit | null | undefined) {
    const headers = [...new Headers(send.headers)];
    return async (request: Request) => {
      const type = request.headers.get('content-type');
      const text =
        typeof body === 'string' || body instanceof URLSearchParams
          ? String(body)
          : request.body
            ? await request.clone().text()
            : undefined;
      await storage!.save({
        v: 1,
        requestId,
        input,
        url: request.url,
        method: request.method,
        headers: type === null || headers.some(([k]) => k === 'content-type') ? headers : [['content-type', type], ...headers],
        ...(text !== undefined && { body: text }),
        createdAt: Date.now(),
      });
    };
  }

  async function run(
    requestId: string,
    input: string | URL,
    label: string,
    send: NormalizedSendOptions,
    signal: AbortSignal | undefined,
    listener: SendEventListener | undefined,
  ): Promise<SendResult> {
    const { onEvent } = client;
    // Nobody listening: no emitter, so no event object is ever built.
    const emit =
      onEvent || listener
        ? (event: SendEvent) => {
            notify(onEvent, event);
            notify(listener, event);
          }
        : undefined;
    const json = send.json !== undefined;
    const body = json ? (stringifyJson ?? JSON.stringify)(send.json) : send.body;
    const headers = requestHeaders(send.headers, client.headerName, client.formatId(requestId), json);
    try {
      const result = await runIntent(client, instance, baseFetch, {
        requestId,
        input,
        method: send.method,
        body,
        headers,
        searchParams: send.searchParams,
        parse: send.parse ?? client.parse,
        signal,
        emit,
        persist: storage && persister(requestId, label, send, body),
      });
      emit?.({ type: 'settled', requestId, outcome: 'answered', replayed: result.replayed, attempts: result.attempts, polls: result.polls });
      return result;
    } catch (error) {
      const { attempts = 0, polls = 0 } = error as { attempts?: number; polls?: number };
      emit?.({ type: 'settled', requestId, outcome: 'failed', error: error as Error, attempts, polls });
      throw error;
    } finally {
      // A record that outlives its intent is harmless: resuming it replays the answer.
      if (storage) await Promise.resolve(storage.remove(requestId)).catch(() => undefined);
    }
  }

  function send<TData>(input: string | URL, options?: SendOptions): Promise<SendResult<TData>> {
    return dispatch<TData>(input, String(input), options);
  }

  async function dispatch<TData>(input: string | URL, label: string, options?: SendOptions): Promise<SendResult<TData>> {
    const call = normalizeSendOptions(options);
    const requestId = call.requestId ?? newRequestId();
    const kind = storage && unstorableBodyKind(call.body);
    if (kind) throw new UnreplayableBodyError(kind, { requestId, attempts: 0, polls: 0 });
    const start = (signal: AbortSignal | undefined, listener: SendEventListener | undefined) =>
      run(requestId, input, label, call, signal, listener);
    return join(call.joinKey, requestId, start, call.signal, call.onEvent) as Promise<SendResult<TData>>;
  }

  /** The one way a stored intent is sent again: to its stored URL, byte for byte. */
  function resend<TData>(stored: StoredIntent, options: ResumeOptions = {}): Promise<SendResult<TData>> {
    const request = { method: stored.method, headers: stored.headers.map(([k, v]) => [k, v] as [string, string]) };
    return dispatch<TData>(new URL(stored.url), stored.input, {
      ...request,
      body: stored.body ?? null,
      ...(options.signal && { signal: options.signal }),
      ...(options.onEvent && { onEvent: options.onEvent }),
      requestId: stored.requestId,
    });
  }

  async function resume<TData>(options: ResumeOptions = {}): Promise<ResumeOutcome<TData>[]> {
    const intents = storage ? await storage.list() : [];
    return Promise.all(
      intents.map(async (stored) => {
        const base = { requestId: stored.requestId, input: stored.input };
        try {
          return { ...base, ok: true as const, result: await resend<TData>(stored, options) };
        } catch (error) {
          return { ...base, ok: false as const, error };
        }
      }),
    );
  }

  async function pending(input: string): Promise<StoredIntent | undefined> {
    return (storage ? await storage.list() : []).find((intent) => intent.input === input);
  }

  return { send, resume, pending, resend, ky: instance };
}
