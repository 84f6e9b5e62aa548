/**
 * The send controller: one user intent at a time over a client, observable.
 *
 * It owns the intent's ID, so it can honour the rules a UI needs without any framework:
 * - `send()` while a send is in flight returns that same promise (a double click is one
 *   request); a send waiting `offline` in the client's outbox is not in flight: the next
 *   `send()` is a new intent queued after it, and each takes the stage when it goes;
 * - `send()` after a failure resends the same intent — the same `requestId`, the same
 *   request — which the server runs again because its record is FAILED; after a failure
 *   that is final for the intent (409 `intent-exhausted`: it ran as often as the server
 *   allows) it starts a new intent with a new ID (and the failed one's `json`, unless given);
 * - `send()` after an answer, or after `reset()`, starts a new intent with a new ID;
 * - `resume()` finishes the intents a previous page left pending in the client's storage
 *   or outbox, one after the other;
 * - `stop()` stops the intent in flight on the server (`client.stop`): a streamed answer
 *   ends `answered` with its partial text and `stopped: true`; the next `send()` is a
 *   new intent.
 *
 * State lives in `send-state.ts`'s reducer; this class only turns client events and
 * outcomes into actions and tells its subscribers.
 */
import { newRequestId } from '../../core/ids.js';
import type { AnswerOnceClient } from '../client.js';
import type { SendEvent, SendEventListener } from '../events.js';
import { endsIntent } from '../send/problem-error.js';
import { clientStop } from '../stop/client-stop.js';
import { confirmRunning } from '../stop/confirm-stop.js';
import type { StopResult } from '../stop/stop.js';
import type { StoredIntent } from '../storage/types.js';
import {
  type ControllerClient,
  type ControllerSendOptions,
  normalizeControllerOptions,
  type SendControllerOptions,
  validateClient,
  validateInput,
} from './controller-options.js';
import { type Answered, readStreamed, Shown, type StreamText } from './read-streamed.js';
import { initialSendState, isInFlight, type SendAction, type SendState, sendReducer } from './send-state.js';
import { Subscribable } from './subscribable.js';

/**
 * Puts the current intent on the wire (again), reporting its events to `onEvent` and, when
 * it streams, its text so far to `onText`.
 */
type Dispatch<TData> = (
  onEvent: SendEventListener,
  onText: (text: string) => void,
  shown: Shown,
) => Promise<Answered<TData>>;

/** The client events that move the state; `replayed` and `settled` are read from the result. */
function toSendAction(event: SendEvent): SendAction<never, never> | undefined {
  switch (event.type) {
    case 'attempt':
      return { type: 'attempt', attempt: event.attempt, retryLimit: event.retryLimit };
    case 'retry':
      return {
        type: 'retry',
        retry: event.retry,
        retryLimit: event.retryLimit,
        reason: event.status === undefined ? event.reason : `${event.reason} ${event.status}`,
        delayMs: event.delay,
      };
    case 'accepted':
      return { type: 'poll', polls: 0 };
    case 'poll':
      return { type: 'poll', polls: event.polls };
    case 'queued':
      return { type: 'queued', queued: event.queued };
    default:
      return undefined;
  }
}

/** The JSON value of a stored text body, when its content type says JSON. */
function storedJson(intent: StoredIntent): unknown {
  const type = new Headers(intent.headers as [string, string][]).get('content-type') ?? '';
  if (intent.body === undefined || !/[/+]json\b/i.test(type)) return undefined;
  try {
    return JSON.parse(intent.body) as unknown;
  } catch {
    return undefined;
  }
}

export class SendController<TData = unknown, TJson = unknown> extends Subscribable {
  // Set by setOptions, which the constructor calls.
  #client!: ControllerClient;
  #input!: string;
  #defaults!: ControllerSendOptions<unknown>;
  #stream: StreamText | undefined;
  #stopGuardMs = 0;
  #state: SendState<TData, TJson> = initialSendState<TData, TJson>();
  #inFlight: Promise<SendState<TData, TJson>> | undefined;
  /** How the current intent is sent, kept so a failed intent is resent unchanged. */
  #dispatch: Dispatch<TData> | undefined;
  /** Bumped by `reset()`: events and outcomes of an older generation are dropped. */
  #generation = 0;
  #resumed: Promise<SendState<TData, TJson>> | undefined;
  /** The intent `stop()` was called for: sending again after it is a new intent. */
  #stoppedId: string | undefined;
  /** When the last `send()` was called: a stop sooner than `stopGuardMs` after it is ignored. */
  #sentAt: number | undefined;
  /** What the current streamed send has shown. */
  #shown: Shown | undefined;
  /** Tells the current send that its stop was not confirmed. */
  #stopFailed: ((error: Error) => void) | undefined;

  constructor(client: ControllerClient, input: string, options: SendControllerOptions = {}) {
    super();
    this.setOptions(client, input, options);
  }

  /** The current state; the same object until something changes. */
  getSnapshot = (): SendState<TData, TJson> => this.#state;

  /** Replaces client, input and defaults; the next send uses them. */
  setOptions(client: ControllerClient, input: string, options: SendControllerOptions = {}): void {
    this.#client = validateClient(client);
    this.#input = validateInput(input);
    ({
      request: this.#defaults,
      stream: this.#stream,
      stopGuardMs: this.#stopGuardMs,
    } = normalizeControllerOptions(options));
  }

  /** The client's `stream`, when this controller streams. */
  #streamer(): AnswerOnceClient['stream'] | undefined {
    if (!this.#stream) return undefined;
    if (!this.#client.stream)
      throw new TypeError('answer-once: `stream` needs a client with `stream()` (createClient({ streaming })).');
    return this.#client.stream;
  }

  /**
   * Sends the intent. Resolves with this send's settled state (`answered` or `failed`)
   * and never rejects: a UI reads `status`. See the class comment for which intent is
   * sent; `options` are ignored while a send is in flight or when a failed one is resent.
   */
  send = (options: ControllerSendOptions<TJson> = {}): Promise<SendState<TData, TJson>> => {
    if (this.#inFlight) return this.#inFlight;
    this.#sentAt = Date.now();
    const { status, requestId: last } = this.#state;
    const exhausted = status === 'failed' && endsIntent(this.#state.error);
    const failed = status === 'failed' && last !== this.#stoppedId && !exhausted ? last : undefined;
    if (failed !== undefined && this.#dispatch !== undefined) {
      return this.#run(failed, this.#dispatch, this.#state.json);
    }
    // A try again after a final failure asks the same question under a new ID.
    const asked = exhausted && this.#state.json !== undefined ? { json: this.#state.json } : {};
    const request = { ...(this.#defaults as ControllerSendOptions<TJson>), ...asked, ...options };
    const requestId = newRequestId();
    // The client and input current when it runs (setOptions may have replaced them).
    this.#dispatch = (onEvent, onText, shown) => {
      const options = { ...request, requestId, onEvent: chain(request.onEvent, onEvent) };
      const stream = this.#streamer();
      if (!stream) return this.#client.send<TData>(this.#input, options);
      const { parse: _parse, ...streamOptions } = options;
      return readStreamed<TData>(stream(this.#input, streamOptions), this.#stream!, onText, shown);
    };
    return this.#run(requestId, this.#dispatch, request.json);
  };

  /**
   * Stops the intent in flight on the server (`client.stop`, PROTOCOL.md § 14.8): the
   * model is told to stop; a streamed answer then ends `answered` with exactly the text
   * shown when `stop()` was called and `stopped: true` — the stop names the position of
   * the last part shown, and the server ends the stored answer there, so a reload shows
   * that same text (a non-streamed one fails with the `intent-stopped` problem, or
   * answers if it was done). The client keeps the intent in storage, so a reload with
   * `resume` shows that partial answer without a model call. Resolves with the
   * server's outcome, or `undefined` when nothing is in flight — or when the stop came
   * within `stopGuardMs` of the `send()` that started it (the second click of a
   * double-click landing on a Stop button that took Send's place): ignored.
   *
   * Never rejects for what the server answered, as `send()`: a stop the server did not
   * confirm (`StopNotConfirmedError`: a route without `DELETE`, no answer, or a server
   * that does not know the intent) resolves `undefined` and sets the state's `stopError`;
   * the answer goes on, shown as it comes.
   */
  stop = async (): Promise<StopResult | undefined> => {
    const { requestId } = this.#state;
    if (requestId === undefined || !isInFlight(this.#state)) return undefined;
    const stop = clientStop(this.#client);
    if (!stop) throw new TypeError('answer-once: `stop()` needs a client with `stop()` (createClient()).');
    if (this.#sentAt !== undefined && Date.now() - this.#sentAt < this.#stopGuardMs) return undefined;
    this.#stoppedId = requestId;
    const shown = this.#shown;
    const failed = this.#stopFailed;
    const at = shown?.freeze();
    const stopping = confirmRunning(at === undefined ? stop(requestId) : stop(requestId, { at }));
    shown?.keep(
      stopping.then(
        ({ outcome }) => outcome === 'stopping',
        () => false,
      ),
    );
    try {
      return await stopping;
    } catch (error) {
      if (this.#stoppedId === requestId) this.#stoppedId = undefined;
      shown?.thaw();
      failed?.(toError(error));
      return undefined;
    }
  };

  /**
   * Forgets the current intent: the state goes back to `idle` and the next `send()`
   * mints a new ID. A send still in flight is not cancelled (its model call may already
   * be paid for); its outcome is simply not shown.
   */
  reset = (): void => {
    this.#generation += 1;
    this.#inFlight = undefined;
    this.#dispatch = undefined;
    this.#publish(sendReducer(this.#state, { type: 'reset' }));
  };

  /**
   * Finishes the intents a previous page left pending in the client's storage adapter or
   * outbox for this controller's input, oldest first, one after the other, each with its
   * original ID. Resolves with the last one's settled state, or the current one when
   * nothing was pending. Runs at most once per controller, so React StrictMode's doubled
   * effects resume once.
   */
  resume = (): Promise<SendState<TData, TJson>> => {
    this.#resumed ??= this.#resume();
    return this.#resumed;
  };

  async #resume(): Promise<SendState<TData, TJson>> {
    if (this.#inFlight) return this.#inFlight;
    const done = new Set<string>();
    // Bounded: each round finishes one stored intent, never the same one twice.
    for (let round = 0; round < MAX_RESUMED; round++) {
      const stored = await this.#client.pending?.(this.#input, (intent) => !done.has(intent.requestId));
      // A send the user started while storage was read wins: resuming now would be a second intent.
      // After the first, the next goes once the last answer is shown (a failure stays on screen).
      const free = this.#state.status === 'idle' || (round > 0 && this.#state.status === 'answered');
      if (!stored || done.has(stored.requestId) || !this.#client.resend || this.#inFlight || !free) break;
      done.add(stored.requestId);
      // The stored request goes again as it first left (URL and query, headers, body byte
      // for byte: the server fingerprints them); the state shows its body as JSON.
      const { signal, onEvent: own } = this.#defaults;
      this.#dispatch = (onEvent, onText, shown) => {
        const options = { ...(signal && { signal }), onEvent: chain(own, onEvent) };
        const stream = this.#streamer();
        if (stream) return readStreamed<TData>(stream(stored, options), this.#stream!, onText, shown);
        return this.#client.resend!<TData>(stored, options);
      };
      await this.#run(stored.requestId, this.#dispatch, storedJson(stored) as TJson);
      // The UI sees this answer before the next one starts.
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    return this.#state;
  }

  #run(requestId: string, dispatch: Dispatch<TData>, json: TJson | undefined): Promise<SendState<TData, TJson>> {
    let generation = this.#generation;
    let promise: Promise<SendState<TData, TJson>> | undefined;
    // Each send keeps its own line of states; it is shown only while it is current.
    let own = sendReducer(this.#state, { type: 'start', requestId, json });
    const shown = new Shown();
    const apply = (action: SendAction<TData, TJson>) => {
      const waited = own.status === 'offline';
      own = sendReducer(own, action);
      if (own.status === 'offline' && this.#inFlight === promise) {
        // Safe in the outbox: the next send is a new intent, queued after this one.
        this.#inFlight = undefined;
      } else if (waited && own.status !== 'offline') {
        // Back online, it goes (the outbox sends one at a time, in order): it takes the
        // stage again, whatever was shown or reset meanwhile.
        generation = this.#generation;
        this.#inFlight = promise;
        this.#shown = shown;
        this.#stopFailed = stopFailed;
      }
      if (generation === this.#generation) this.#publish(own);
    };
    const stopFailed = (error: Error) => apply({ type: 'stop-failed', error });
    this.#publish(own);
    this.#shown = shown;
    this.#stopFailed = stopFailed;
    // Async, so a client whose send() throws synchronously still ends this send `failed`.
    const sent = (async () =>
      dispatch(
        (event) => {
          const action = toSendAction(event);
          if (action) apply(action);
        },
        (text) => apply({ type: 'text', text }),
        shown,
      ))();
    promise = sent
      .then(
        (result) =>
          apply({ type: 'answer', data: result.data, replayed: result.replayed, stopped: result.stopped ?? false }),
        (error: unknown) => apply({ type: 'fail', error: toError(error) }),
      )
      .then(() => {
        if (this.#inFlight === promise) this.#inFlight = undefined;
        return own;
      });
    this.#inFlight = promise;
    return promise;
  }

  #publish(state: SendState<TData, TJson>): void {
    if (state === this.#state) return;
    this.#state = state;
    for (const listener of this.listeners) listener();
  }
}

/** At most this many stored intents are finished by one `resume()`. */
const MAX_RESUMED = 50;

/** The caller's listener first, then the controller's. */
function chain(first: SendEventListener | undefined, then: SendEventListener): SendEventListener {
  return first
    ? (event) => {
        try {
          first(event);
        } finally {
          then(event);
        }
      }
    : then;
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error), { cause: error });
}
