/**
 * The send controller: one user intent at a time over a client, observable.
 *
 * It owns the intent's ID, so it can honour the rules a UI needs without any framework:
 * - `send()` while a send is in flight returns that same promise (a double click is one
 *   request);
 * - `send()` after a failure resends the same intent — the same `requestId`, the same
 *   request — which the server runs again because its record is FAILED;
 * - `send()` after an answer, or after `reset()`, starts a new intent with a new ID;
 * - `resume()` finishes an intent a previous page left pending in the client's storage.
 *
 * State lives in `send-state.ts`'s reducer; this class only turns client events and
 * outcomes into actions and tells its subscribers.
 */
import { newRequestId } from '../core/ids.js';
import {
  initialSendState,
  isInFlight,
  sendReducer,
  type SendAction,
  type SendState,
} from '../core/send-state.js';
import { Subscribable } from '../core/subscribable.js';

/**
 * What the controller needs from a client; `createClient()`'s result satisfies it.
 * Structural, so a test double or a wrapped client works too.
 */
export interface ControllerClient {
  send(input: string, options: ControllerSendOptions & { requestId: string }): Promise<{
    readonly data: unknown;
    readonly replayed: boolean;
    readonly requestId: string;
  }>;
  /**
   * The intent a previous page left pending for `input` in the client's storage, if any.
   * Optional: a client without storage never has one.
   */
  pending?(input: string): Promise<PendingIntent | undefined> | PendingIntent | undefined;
}

/** A pending intent as the controller resumes it. */
export interface PendingIntent {
  readonly requestId: string;
  readonly options: ControllerSendOptions;
}

/** The per-send request options the controller passes through (json, headers, signal…). */
export interface ControllerSendOptions {
  readonly json?: unknown;
  readonly headers?: HeadersInit;
  readonly signal?: AbortSignal;
  readonly requestId?: string;
  readonly onEvent?: (event: ControllerEvent) => void;
  readonly [option: string]: unknown;
}

/** The client events the controller turns into state. */
export type ControllerEvent =
  | { readonly type: 'attempt'; readonly attempt: number; readonly retryLimit?: number }
  | {
      readonly type: 'retry';
      readonly attempt: number;
      readonly retryLimit?: number;
      readonly reason: string;
      readonly delay: number;
    }
  | { readonly type: 'poll'; readonly polls?: number }
  | { readonly type: 'replayed' | 'settled'; readonly [field: string]: unknown };

function toSendAction<TData>(event: ControllerEvent): SendAction<TData> | undefined {
  switch (event.type) {
    case 'attempt':
      return { type: 'attempt', attempt: event.attempt, retryLimit: event.retryLimit };
    case 'retry':
      return {
        type: 'retry',
        attempt: event.attempt,
        retryLimit: event.retryLimit,
        reason: event.reason,
        delayMs: event.delay,
      };
    case 'poll':
      return { type: 'poll', polls: event.polls };
    default:
      return undefined;
  }
}

export interface SendControllerOptions {
  /**
   * Request options used by every send of this controller (for example `headers`);
   * the options passed to `send()` are merged over them.
   * @default {}
   */
  readonly request?: ControllerSendOptions;
}

export class SendController<TData = unknown> extends Subscribable {
  #client: ControllerClient;
  #input: string;
  #defaults: ControllerSendOptions;
  #state: SendState<TData> = initialSendState<TData>();
  #inFlight: Promise<SendState<TData>> | undefined;
  /** The request of the current intent, kept so a failed intent is resent unchanged. */
  #request: ControllerSendOptions | undefined;
  /** Bumped by `reset()`: events and outcomes of an older generation are dropped. */
  #generation = 0;
  #resumed: Promise<SendState<TData>> | undefined;

  constructor(client: ControllerClient, input: string, options: SendControllerOptions = {}) {
    super();
    this.#client = validateClient(client);
    this.#input = validateInput(input);
    this.#defaults = normalizeControllerOptions(options).request;
  }

  /** The current state; the same object until something changes. */
  getSnapshot = (): SendState<TData> => this.#state;

  /** Replaces client, input and defaults; the next send uses them. */
  setOptions(client: ControllerClient, input: string, options: SendControllerOptions = {}): void {
    this.#client = validateClient(client);
    this.#input = validateInput(input);
    this.#defaults = normalizeControllerOptions(options).request;
  }

  /**
   * Sends the intent. Resolves with the settled state (`answered` or `failed`), never
   * rejects: a UI reads `state.status`. See the class comment for which intent is sent.
   */
  send = (options: ControllerSendOptions = {}): Promise<SendState<TData>> => {
    if (this.#inFlight) return this.#inFlight;
    const again = this.#state.status === 'failed' && this.#request !== undefined;
    const requestId = again ? this.#state.requestId! : newRequestId();
    if (!again) this.#request = { ...this.#defaults, ...options };
    return this.#run(requestId, this.#request!, (opts) =>
      this.#client.send(this.#input, { ...opts, requestId }),
    );
  };

  /**
   * Forgets the current intent: the state goes back to `idle` and the next `send()`
   * mints a new ID. A send still in flight is not cancelled (its model call may already
   * be paid for); its outcome is simply not shown.
   */
  reset = (): void => {
    this.#generation += 1;
    this.#inFlight = undefined;
    this.#request = undefined;
    this.#dispatch({ type: 'reset' });
  };

  /**
   * Finishes the intent a previous page left pending in the client's storage adapter
   * (the first one sent to this controller's input), with its original ID. Resolves
   * with the settled state, or the current one when nothing was pending. Runs at most
   * once per controller, so React StrictMode's doubled effects resume once.
   */
  resume = (): Promise<SendState<TData>> => {
    this.#resumed ??= this.#resume();
    return this.#resumed;
  };

  async #resume(): Promise<SendState<TData>> {
    if (this.#inFlight) return this.#inFlight;
    const pending = await this.#client.pending?.(this.#input);
    if (!pending || this.#inFlight || this.#state.status !== 'idle') return this.#state;
    this.#request = pending.options;
    return this.#run(pending.requestId, pending.options, (opts) =>
      this.#client.send(this.#input, { ...opts, requestId: pending.requestId }),
    );
  }

  #run(
    requestId: string,
    request: ControllerSendOptions,
    call: (options: ControllerSendOptions) => ReturnType<ControllerClient['send']>,
  ): Promise<SendState<TData>> {
    const generation = this.#generation;
    const current = () => generation === this.#generation;
    this.#dispatch({ type: 'start', requestId });
    const userOnEvent = request.onEvent;
    const promise = call({
      ...request,
      onEvent: (event) => {
        userOnEvent?.(event);
        const action = toSendAction<TData>(event);
        if (action && current()) this.#dispatch(action);
      },
    }).then(
      (result) => {
        if (current()) {
          this.#dispatch({ type: 'answer', data: result.data as TData, replayed: result.replayed });
        }
      },
      (error: unknown) => {
        if (current()) this.#dispatch({ type: 'fail', error: toError(error) });
      },
    ).then(() => {
      if (current()) this.#inFlight = undefined;
      return this.#state;
    });
    this.#inFlight = promise;
    return promise;
  }

  #dispatch(action: SendAction<TData>): void {
    const next = sendReducer(this.#state, action);
    if (next === this.#state) return;
    this.#state = next;
    for (const listener of this.listeners) listener();
  }

  /** True while a send is in flight. */
  get sending(): boolean {
    return isInFlight(this.#state);
  }
}

function normalizeControllerOptions(options: SendControllerOptions): {
  request: ControllerSendOptions;
} {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('answer-once: `options` must be an object.');
  }
  const request = options.request ?? {};
  if (typeof request !== 'object' || request === null) {
    throw new TypeError('answer-once: `options.request` must be an object of send options.');
  }
  if ('requestId' in request && request.requestId !== undefined) {
    throw new TypeError(
      'answer-once: `options.request.requestId` is not allowed: the controller mints one ID per intent.',
    );
  }
  return { request };
}

function validateClient(client: ControllerClient): ControllerClient {
  if (typeof client !== 'object' || client === null || typeof client.send !== 'function') {
    throw new TypeError('answer-once: `client` must be a client from createClient().');
  }
  return client;
}

function validateInput(input: string): string {
  if (typeof input !== 'string' || input === '') {
    throw new TypeError('answer-once: `input` must be a non-empty URL or path string.');
  }
  return input;
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error), { cause: error });
}
