/**
 * The lifecycle of one send, as a pure reducer over typed actions (no client, no React).
 *
 *   idle ─start→ sending ─retry→ retrying ─attempt→ sending ─…
 *                   │  └──────poll→ waiting (202: the server is still generating)
 *                   ├─text→   streaming  (a streamed send: the answer's text so far)
 *                   ├─answer→ answered   (data, replayed, stopped)
 *                   ├─fail→   failed     (error; sending again keeps the requestId)
 *                   └─queued→ offline    (no network: kept in the outbox, `queued` sends wait)
 *                                ─attempt→ sending (back online: it goes, same requestId)
 *
 * `stop-failed` (a stop the server did not confirm) sets `stopError` on a send in flight
 * and changes nothing else: the send goes on.
 *
 * `SendState` is the whole snapshot, a union keyed on `status`: `data` is typed only in
 * `answered`, `error` only in `failed`, `retry` only in `retrying`; the other fields are
 * in every state, so a UI can read `state.attempt` without narrowing.
 *
 * Counting follows the client's: `attempt` and `polls` count this send's requests, so a
 * send again after a failure (same `requestId`, a new call with its own retry budget)
 * starts them at 0 again, as the client's own numbers do.
 */

export type SendStatus = 'idle' | 'sending' | 'retrying' | 'waiting' | 'streaming' | 'offline' | 'answered' | 'failed';

/** Why and when the client tries again, as the client reported it. */
export interface RetryInfo {
  /** Retry number, 1-based, of at most `retryLimit`: "retrying (number/retryLimit)". */
  readonly number: number;
  /** A short reason such as `network`, `timeout`, `status 503`. */
  readonly reason: string;
  /** The backoff before the next attempt, in milliseconds. */
  readonly delayMs: number;
}

interface Fields<TJson> {
  /** The intent's ID; `undefined` only before the first send of an intent. */
  readonly requestId: string | undefined;
  /** The JSON body of the intent (what the user asked), kept to render it and resend it. */
  readonly json: TJson | undefined;
  /** 1-based number of this send's attempt in flight (or the last one made); 0 before any. */
  readonly attempt: number;
  /** How many retries the client allows after the first attempt, when known. */
  readonly retryLimit: number | undefined;
  /** Status polls this send made while the server reported the intent still running. */
  readonly polls: number;
  /** True when the answer was a replay of one stored earlier (the "already answered" badge). */
  readonly replayed: boolean;
  /** A streamed send's answer text so far (`streaming`), and all of it once `answered`. */
  readonly text: string | undefined;
  /** True when the answer was stopped (PROTOCOL.md § 14.8): `text`/`data` is the partial answer. */
  readonly stopped: boolean;
  /**
   * A `stop()` of this send that the server did not confirm (`StopNotConfirmedError`: a
   * stop route without `DELETE`, no answer…): the answer goes on — and is paid for — to
   * its end, shown as it comes. `undefined` until such a stop.
   */
  readonly stopError: Error | undefined;
}

interface Quiet {
  readonly data: undefined;
  readonly error: undefined;
  readonly retry: undefined;
  readonly queued: undefined;
}

export type SendState<TData = unknown, TJson = unknown> =
  | (Fields<TJson> & Quiet & { readonly status: 'idle' })
  | (Fields<TJson> & Quiet & { readonly status: 'sending' | 'waiting' | 'streaming' })
  | (Fields<TJson> & Omit<Quiet, 'retry'> & { readonly status: 'retrying'; readonly retry: RetryInfo })
  /** No network: the send waits in the client's outbox with `queued` sends (itself included) and goes when it is back. */
  | (Fields<TJson> & Omit<Quiet, 'queued'> & { readonly status: 'offline'; readonly queued: number })
  | (Fields<TJson> & Omit<Quiet, 'data'> & { readonly status: 'answered'; readonly data: TData })
  | (Fields<TJson> & Omit<Quiet, 'error'> & { readonly status: 'failed'; readonly error: Error });

export type SendAction<TData = unknown, TJson = unknown> =
  /** A send began (a new intent, or the same intent again after a failure). */
  | { readonly type: 'start'; readonly requestId: string; readonly json?: TJson }
  /** The client put an attempt on the wire. */
  | { readonly type: 'attempt'; readonly attempt: number; readonly retryLimit?: number }
  /**
   * An attempt or poll failed in a retryable way; retry number `retry` (of `retryLimit`)
   * follows after `delayMs` — so a UI shows "retrying (retry/retryLimit)".
   */
  | {
      readonly type: 'retry';
      readonly retry: number;
      readonly retryLimit?: number;
      readonly reason: string;
      readonly delayMs: number;
    }
  /** The browser is offline: the send waits in the outbox, which now holds `queued` sends. */
  | { readonly type: 'queued'; readonly queued: number }
  /** The server answered 202: the intent is running; the client polls its status. */
  | { readonly type: 'poll'; readonly polls?: number }
  /** A streamed answer's text so far (all of it, not the new piece); `''` after a restart. */
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'answer'; readonly data: TData; readonly replayed: boolean; readonly stopped?: boolean }
  | { readonly type: 'fail'; readonly error: Error }
  /** A stop the server did not confirm: the answer goes on. */
  | { readonly type: 'stop-failed'; readonly error: Error }
  /** Forget the intent; the next send is a new one. */
  | { readonly type: 'reset' };

const IDLE: Extract<SendState<never, never>, { status: 'idle' }> = /* @__PURE__ */ Object.freeze({
  status: 'idle',
  requestId: undefined,
  json: undefined,
  attempt: 0,
  retryLimit: undefined,
  polls: 0,
  replayed: false,
  retry: undefined,
  queued: undefined,
  text: undefined,
  stopped: false,
  stopError: undefined,
  data: undefined,
  error: undefined,
});

/** The state before anything was sent. */
export function initialSendState<TData = unknown, TJson = unknown>(): SendState<TData, TJson> {
  return IDLE;
}

/**
 * True while a send is in flight (a second `send()` joins it). A send waiting `offline`
 * is not: it is safe in the outbox, and the next `send()` is a new intent queued after it.
 */
export function isInFlight(state: SendState<unknown, unknown>): boolean {
  return (
    state.status === 'sending' || state.status === 'retrying' || state.status === 'waiting' || state.status === 'streaming'
  );
}

/**
 * Applies one action. Pure: returns a new state, or the same object when nothing
 * changed, so subscribers can compare by identity. Progress actions (`attempt`,
 * `retry`, `poll`, `queued`) arriving when no send is in flight or waiting offline are
 * ignored: they belong to a send that was reset or already settled.
 */
export function sendReducer<TData, TJson>(
  state: SendState<TData, TJson>,
  action: SendAction<TData, TJson>,
): SendState<TData, TJson> {
  if (action.type === 'start') {
    return {
      ...IDLE,
      status: 'sending',
      requestId: action.requestId,
      json: action.json,
      // A send again after a failure is a new call: its numbers start at 0, as the
      // client's do; the known limit stays.
      retryLimit: state.retryLimit,
    };
  }
  // One idle state: a reset of it is the same object.
  if (action.type === 'reset') return IDLE;
  if (!isInFlight(state) && state.status !== 'offline') return state;
  const fields = progressFields(state);
  switch (action.type) {
    case 'attempt':
      return {
        ...fields,
        // A streamed body reconnecting stays `streaming`: its text keeps showing.
        status: state.status === 'streaming' ? 'streaming' : 'sending',
        attempt: action.attempt,
        retryLimit: action.retryLimit ?? state.retryLimit,
      };
    case 'retry':
      return {
        ...fields,
        status: 'retrying',
        retryLimit: action.retryLimit ?? state.retryLimit,
        retry: { number: action.retry, reason: action.reason, delayMs: action.delayMs },
      };
    case 'poll':
      return { ...fields, status: 'waiting', polls: action.polls ?? state.polls + 1 };
    case 'queued':
      return state.status === 'offline' && state.queued === action.queued
        ? state
        : { ...fields, status: 'offline', queued: action.queued };
    case 'text':
      return state.status === 'streaming' && state.text === action.text
        ? state
        : { ...fields, status: 'streaming', text: action.text };
    case 'answer':
      return {
        ...fields,
        status: 'answered',
        data: action.data,
        replayed: action.replayed,
        stopped: action.stopped ?? false,
      };
    case 'fail':
      return { ...fields, status: 'failed', error: action.error };
    case 'stop-failed':
      return { ...state, stopError: action.error };
  }
}

/** The fields an in-flight state carries into its next state, minus per-state extras. */
function progressFields<TJson>(state: SendState<unknown, TJson>): Fields<TJson> & Quiet {
  const { requestId, json, attempt, retryLimit, polls, replayed, text, stopped, stopError } = state;
  return {
    requestId,
    json,
    attempt,
    retryLimit,
    polls,
    replayed,
    text,
    stopped,
    stopError,
    retry: undefined,
    queued: undefined,
    data: undefined,
    error: undefined,
  };
}
