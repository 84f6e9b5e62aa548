/**
 * What `onEvent` reports while one intent travels. Every event names its `requestId`,
 * so one listener can follow many intents. The shapes are a public contract: the send
 * controller (`answer-once/react`) turns them into UI state.
 */
import type { ResendCode } from '../core/problems.js';
import type { AnswerOnceError } from './errors/answer-once-error.js';

/** Why the client is about to try again. */
export type RetryReason =
  /** No response arrived: offline, connection reset, DNS failure. */
  | 'network'
  /**
   * The answer's headers arrived but the connection broke before its body ended; the
   * server stored the answer, so the same request is sent again to replay it.
   */
  | 'response-cut'
  /** The attempt took longer than `timeout`. */
  | 'timeout'
  /** The server answered a retryable status (408, 425, 429, 5xx). */
  | 'status'
  /** The server is still running an earlier attempt of this intent (409). */
  | 'in-progress'
  /**
   * The server's problem code says to send the original request again: `intent-failed`
   * (this intent failed), `intent-not-found` (the status route does not know it),
   * `request-body-incomplete` (the request's body did not reach the server whole).
   */
  | ResendCode;

/** What every event carries: its `type`, and the `requestId` of the intent it is about. */
interface IntentEvent<Type extends string> {
  readonly type: Type;
  readonly requestId: string;
}

/** A request of this intent went on the wire to the send route (not a status poll). */
export interface AttemptEvent extends IntentEvent<'attempt'> {
  /** 1-based: 1 is the first send, 2 the first retry… */
  readonly attempt: number;
  /** Retries allowed after the first attempt. */
  readonly retryLimit: number;
}

/** An attempt or poll failed in a way worth retrying; the next one follows after `delay`. */
export interface RetryEvent extends IntentEvent<'retry'> {
  /**
   * Retry number, 1-based, across the whole call (failed attempts, failed polls and
   * resends share the budget); at most `retryLimit`. A UI shows "retrying (retry/retryLimit)".
   */
  readonly retry: number;
  readonly retryLimit: number;
  readonly reason: RetryReason;
  /** Milliseconds until the retry (from `Retry-After` when the server sent one). */
  readonly delay: number;
  /** The HTTP status that caused it, when a response arrived. */
  readonly status?: number;
}

/** The server answered 202: it is running this intent. A UI shows "still generating…". */
export interface AcceptedEvent extends IntentEvent<'accepted'> {
  /** Where the client will poll, or `undefined` when it will resend instead. */
  readonly statusUrl: string | undefined;
  /** Milliseconds until the first poll: 0 when it long-polls (`pollWait`) a status URL. */
  readonly delay: number;
}

/** A status poll went on the wire (`Prefer: wait=N`, same ID). */
export interface PollEvent extends IntentEvent<'poll'> {
  /** 1-based count of polls made for this intent so far. */
  readonly polls: number;
  readonly url: string;
}

/** The answer is one the server had stored: no new work ran for it. */
export interface ReplayedEvent extends IntentEvent<'replayed'> {
  readonly status: number;
}

/** The intent is over: answered, or failed with `error`. Always the last event. */
export type SettledEvent = IntentEvent<'settled'> & {
  readonly attempts: number;
  readonly polls: number;
} & (
    | { readonly outcome: 'answered'; readonly replayed: boolean }
    | { readonly outcome: 'failed'; readonly error: AnswerOnceError | Error }
  );

/**
 * A streamed answer's connection broke mid-body (`reason: 'cut'`), or the server ended
 * this reader's answer with its error marker (`'error-marker'`, PROTOCOL.md § 14.7): the
 * client sends the intent again, same ID, from `position` (`<generation>.<offset>`, or
 * `undefined` from the start), and the body continues where it was.
 */
export interface ReconnectEvent extends IntentEvent<'reconnect'> {
  /** 1-based count of reconnects this body made so far. */
  readonly reconnects: number;
  readonly reason: 'cut' | 'error-marker';
  readonly position: string | undefined;
}

/**
 * The answer started again on the server as `generation` (its producer died and a
 * successor runs the work, § 14.5): what a UI showed of the old one is void.
 */
export interface RestartEvent extends IntentEvent<'restart'> {
  readonly generation: number;
}

/**
 * The send found the browser offline (or every attempt failed on the network): it waits
 * in the client's `outbox`, with its ID and request as first minted, and goes when the
 * browser is back online. `queued` is how many sends the outbox holds now.
 */
export interface QueuedEvent extends IntentEvent<'queued'> {
  readonly queued: number;
}

export type SendEvent =
  | AttemptEvent
  | QueuedEvent
  | RetryEvent
  | AcceptedEvent
  | PollEvent
  | ReplayedEvent
  | ReconnectEvent
  | RestartEvent
  | SettledEvent;

/** Receives every {@link SendEvent}. Must not throw; a throwing listener is ignored. */
export type SendEventListener = (event: SendEvent) => void;
