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
import type { IntentStorage, StoredIntent } from './storage/types.js';

/** How one pending intent ended when `resume()` finished it. */
export type ResumeOutcome<TData = unknown> =
  | { readonly requestId: string; readonly input: string; readonly ok: true; readonly result: SendResult<TData> }
  | { readonly requestId: string; readonly input: string; readonly ok: false; readonly error: unknown };

/** Options of `client.resume()`. */
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

/** A pending intent as `send()` takes it back: its ID and the options that resend it. */
export interface PendingSend {
  readonly requestId: string;
  readonly options: StoredSendOptions;
}

/** The request options a pending intent was stored with. */
export type StoredSendOptions = Required<Pick<SendOptions, 'method' | 'headers' | 'body'>>;

export interface AnswerOnceClient {
  /** Sends one user intent; retries, polls and resends all carry the same ID. */
  send<TData = unknown>(input: string | URL, options?: SendOptions): Promise<SendResult<TData>>;
  /** Finishes every pending intent in `storage` with its original ID (none without storage). */
  resume<TData = unknown>(options?: ResumeOptions): Promise<ResumeOutcome<TData>[]>;
  /** The oldest pending intent sent to `input` (as given to `send`), if any. */
  pending(input: string): Promise<PendingSend | undefined>;
  /** The ky instance the client sends with (the base instance, extended). */
  readonly ky: KyInstance;
}

/** `init` plus one header; a plain object stays plain (ky merges those cheaply). */
function withHeader(init: HeadersInit | undefined, name: string, value: string): HeadersInit {
  if (init === undefined || (Object.getPrototypeOf(init) === Object.prototype && !Array.isArray(init))) {
    const lower = name.toLowerCase();
    const rest = Object.entries((init ?? {}) as Record<string, string>).filter(([key]) => key.toLowerCase() !== lower);
    return { ...Object.fromEntries(rest), [name]: value };
  }
  const headers = new Headers(init);
  headers.set(name, value);
  return headers;
}

function toSendOptions(stored: StoredIntent): StoredSendOptions {
  return { method: stored.method, headers: stored.headers.map(([k, v]) => [k, v]), body: stored.body ?? null };
}

export function createClient(options: ClientOptions = {}): AnswerOnceClient {
  const client = normalizeClientOptions(options);
  const { storage } = client;
  // The parent instance's own `fetch` (if any) is what the client's fetch wraps.
  let baseFetch = client.kyOptions.fetch;
  const instance = client.ky.extend((defaults) => {
    baseFetch ??= defaults.fetch;
    return client.kyOptions;
  });
  const join = createJoiner<SendResult>((signal, progress) => new AbortError(progress, signal.reason));

  function persister(requestId: string, input: string, send: NormalizedSendOptions, store: IntentStorage) {
    const headers = [...new Headers(send.headers)];
    return async (request: Request) => {
      const type = request.headers.get('content-type');
      await store.save({
        v: 1,
        requestId,
        input,
        url: request.url,
        method: request.method,
        headers: type === null || headers.some(([k]) => k === 'content-type') ? headers : [['content-type', type], ...headers],
        ...(request.body && { body: await request.clone().text() }),
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
    listener: SendEventListener,
  ): Promise<SendResult> {
    const emit = (event: SendEvent) => {
      notify(client.onEvent, event);
      listener(event);
    };
    const headers = withHeader(send.headers, client.headerName, client.formatId(requestId));
    try {
      const result = await runIntent(client, instance, baseFetch, {
        requestId,
        input,
        method: send.method,
        json: send.json,
        body: send.body,
        headers,
        searchParams: send.searchParams,
        parse: send.parse ?? client.parse,
        signal,
        emit,
        persist: storage && persister(requestId, label, send, storage),
      });
      emit({ type: 'settled', requestId, outcome: 'answered', replayed: result.replayed, attempts: result.attempts, polls: result.polls });
      return result;
    } catch (error) {
      const { attempts = 0, polls = 0 } = error as { attempts?: number; polls?: number };
      emit({ type: 'settled', requestId, outcome: 'failed', error: error as Error, attempts, polls });
      throw error;
    } finally {
      // A record that outlives its intent is harmless: resuming it replays the answer.
      await Promise.resolve(storage?.remove(requestId)).catch(() => undefined);
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
    const start = (signal: AbortSignal | undefined, listener: SendEventListener) =>
      run(requestId, input, label, call, signal, listener);
    return join(call.joinKey, requestId, start, call.signal, call.onEvent) as Promise<SendResult<TData>>;
  }

  async function resume<TData>(resumeOptions: ResumeOptions = {}): Promise<ResumeOutcome<TData>[]> {
    const intents = storage ? await storage.list() : [];
    return Promise.all(
      intents.map(async (stored) => {
        const base = { requestId: stored.requestId, input: stored.input };
        try {
          const result = await dispatch<TData>(new URL(stored.url), stored.input, {
            ...toSendOptions(stored),
            ...resumeOptions,
            requestId: stored.requestId,
          });
          return { ...base, ok: true as const, result };
        } catch (error) {
          return { ...base, ok: false as const, error };
        }
      }),
    );
  }

  async function pending(input: string): Promise<PendingSend | undefined> {
    const stored = (storage ? await storage.list() : []).find((intent) => intent.input === input);
    return stored && { requestId: stored.requestId, options: toSendOptions(stored) };
  }

  return { send, resume, pending, ky: instance };
}
