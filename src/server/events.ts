import type { StepsAvoided, Usage } from './usage.js';

/**
 * What became of one request (or one `runOnce` call), as the `answered` event says:
 * - `ran`: this request ran the work (a model call) and answered with what it made;
 * - `replayed`, `attached`, `resumed`: answered without running it — a stored answer, the
 *   live answer another request is producing, or either from a position the client
 *   already had (`Last-Event-ID`, `Range`); whether that counts as a model call avoided
 *   is the `answered` event's `avoided`;
 * - `in_progress`: told to come back (202, or `IntentInProgressError`);
 * - `conflict`: the ID was used with another request (422);
 * - `failed`: the answer this request got failed — its own run failed (a model call all
 *   the same), the live answer it attached to did (error marker, aborted body), the
 *   intent's last run had (resend), or the store did;
 * - `stopped`: the answer it got was stopped (409 `intent-stopped`, or an event stream
 *   that ends in the stop marker), its own run's or not;
 * - `exhausted`: the intent ran as often as allowed (`intent-exhausted`).
 *
 * Runs are counted apart from outcomes (the `acquired` event): a request that ran the work
 * and failed or was stopped is a model call too.
 */
export type AnswerOutcome =
  | 'ran'
  | 'replayed'
  | 'attached'
  | 'resumed'
  | 'in_progress'
  | 'conflict'
  | 'failed'
  | 'stopped'
  | 'exhausted';

/** The store call an event is about. */
export type StoreOperation =
  | 'acquire'
  | 'renew'
  | 'complete'
  | 'fail'
  | 'get'
  | 'wait'
  | 'append'
  | 'read'
  | 'stop'
  | 'watchStop'
  | 'markAvoided'
  | 'startStep'
  | 'finishStep';

/** What every event carries: the intent's ID, and its user when the app opted in. */
export interface EventSubject {
  /**
   * The intent's request ID, as the client sent it (the ID a user quotes from an error).
   * For `runOnce` it is its `requestId` option, else the key.
   */
  readonly requestId: string;
  /** The scope's user, only with the handler's `eventsIncludeUser: true`. */
  readonly user?: string;
}

/** Each event without its {@link EventSubject}. */
export type IdempotencyEventBody =
  /** This worker holds the intent and starts the work. */
  | { readonly type: 'acquired'; readonly key: string; readonly takeover: boolean; readonly retry: boolean }
  /** The work's result was stored as the intent's answer. */
  | { readonly type: 'completed'; readonly key: string }
  /**
   * The work failed; stored as FAILED. `error` is what the work threw, or, for an HTTP
   * answer of 5xx/408/425/429, `{ status, retryAfter? }`.
   */
  | { readonly type: 'failed'; readonly key: string; readonly error: unknown }
  /**
   * The intent's work ran `maxRuns` times (`runs` claims): from now on it is answered
   * `intent-exhausted` and never runs again (PROTOCOL.md § 5.7). Reported once, when the
   * record is settled so.
   */
  | { readonly type: 'exhausted'; readonly key: string; readonly runs: number }
  /**
   * A stored answer was replayed instead of running the work; `usage` is what its run
   * reported (when it did, and a listener is set); `counted`: the intent's call avoided
   * was counted already (its record is marked, `markAvoided`), so this replay counts none.
   */
  | { readonly type: 'replayed'; readonly key: string; readonly usage?: Usage; readonly counted?: true }
  /** An attempt or a status request attached to the answer another attempt is streaming. */
  | { readonly type: 'attached'; readonly key: string }
  /** A stop was asked through the stop route (PROTOCOL.md § 14.8). */
  | { readonly type: 'stop-requested'; readonly key: string }
  /** Another live worker holds the intent; the caller was told to wait or waited. */
  | { readonly type: 'in-progress'; readonly key: string }
  /** A heartbeat found the lease taken over: the work's signal was aborted. */
  | { readonly type: 'lease-lost'; readonly key: string }
  /** A zombie write was rejected by fencing; its result was discarded, never stored. */
  | { readonly type: 'fenced'; readonly key: string; readonly operation: 'complete' | 'fail' }
  /**
   * The record vanished while the work ran (Redis flushed or restarted, a key evicted)
   * and nobody else held the intent: the worker claimed it again (`reclaimed`) or could
   * not; its answer is delivered either way (PROTOCOL.md § 7.2).
   */
  | {
      readonly type: 'record-lost';
      readonly key: string;
      readonly operation: 'renew' | 'append' | 'complete' | 'fail';
      readonly reclaimed: boolean;
    }
  /** The work ran past `maxRunMs`: its signal was aborted and the attempt failed. */
  | { readonly type: 'run-timeout'; readonly key: string; readonly maxRunMs: number }
  /** The store threw or timed out; see PROTOCOL.md § 10 for what the caller got. */
  | { readonly type: 'store-error'; readonly key: string; readonly operation: StoreOperation; readonly error: unknown }
  /** The app's `scope` callback threw or returned no valid scope; the caller got a 500. */
  | { readonly type: 'scope-error'; readonly error: unknown }
  /**
   * One request (or `runOnce` call) is answered — once each, when its answer's body ended
   * or its caller left. `firstByteMs` runs from the request to its answer's first byte
   * (the head, for an answer without a body). `avoided` says the request counts as a
   * model call avoided (PROTOCOL.md § 7.6): a send of the intent — not a status read,
   * not a resume from a position — answered the whole answer without a run
   * (`replayed`, `attached`), and the first such for its intent. `usage` is the run's
   * reported usage: what its answer cost (`ran`) — `reportUsage`'s, or else the sum of the
   * usage of its journaled steps, those it ran and those a former run of the intent paid
   * for (absent: unknown, never 0) — or the tokens avoided (`avoided`). `stepsAvoided`,
   * on the answer of a run that took steps from the journal, is what that spared it: the
   * model calls, the tool calls and the model calls' recorded usage. The metrics of
   * `answer-once/otel` are made of these.
   */
  | {
      readonly type: 'answered';
      readonly outcome: AnswerOutcome;
      readonly avoided?: true;
      readonly firstByteMs?: number;
      readonly usage?: Usage;
      readonly stepsAvoided?: StepsAvoided;
    }
  /**
   * A journaled step (`ctx.step`, PROTOCOL.md § 15) came to an outcome in this run:
   * - `ran`: its `fn` ran here (its first run, a step safe to repeat run again, or one a
   *   `reconcile` said was not done); `usage` is what it reported it cost;
   * - `replayed`: a former run's recorded outcome was returned without running it;
   *   `usage` is what that run recorded: the tokens avoided (absent: unknown);
   * - `reconciled`: it was found started without outcome and the app's `reconcile`
   *   found it done: that outcome was recorded and returned without running it;
   * - `uncertain`: it was found started without outcome and is not run again (this run
   *   gets `StepUncertainError`, unless a `reconcile` decides).
   * `step` is the step's name and `kind` the kind it was given (`'model'`, `'tool'`, …).
   */
  | {
      readonly type: 'step';
      readonly key: string;
      readonly step: string;
      readonly kind?: string;
      readonly outcome: 'ran' | 'replayed' | 'reconciled' | 'uncertain';
      readonly usage?: Usage;
    }
  /** A bounded store dropped a record to make room (its answer will not be replayed). */
  | { readonly type: 'evicted'; readonly key: string; readonly state: 'processing' | 'completed' | 'failed' };

/**
 * What happened to an intent, for logs and metrics (model calls saved, takeovers,
 * zombie writes). Listeners are called synchronously; their errors are swallowed.
 */
export type IdempotencyEvent = IdempotencyEventBody & EventSubject;

/** Receives {@link IdempotencyEvent}s. */
export type IdempotencyEventListener = (event: IdempotencyEvent) => void;

/** Reports one event about the intent it was made for. */
export type Reporter = (event: IdempotencyEventBody) => void;

/** The reporter of a handler nobody listens to: one for all. */
const ignore: Reporter = () => undefined;

/** A {@link Reporter} that adds `subject` to every event; it never lets the listener's failure break the request. */
export function reporter(listener: IdempotencyEventListener | undefined, subject: EventSubject): Reporter {
  if (!listener) return ignore;
  return (event) => {
    try {
      listener({ ...event, ...subject });
    } catch {
      // A broken metrics hook must not turn an answered intent into an error.
    }
  };
}
