/**
 * Where one intent's transport loop stands, as a value, and the named transitions that
 * move it — pure, like `../controller/send-state.ts` is for the UI. `run-intent.ts` keeps one
 * `IntentProgress` and replaces it at each step; everything it reports (events, the
 * result, an error's context) is read from it.
 *
 *   sending ─attempt→ sending ─accepted (202)→ polling ─poll→ polling ─…
 *      ↑  └─retry (5xx, network, cut)─┘            │
 *      └──────────resend (intent failed / not found)┘
 *
 * Counting, decided once: `attempts` counts the send-route requests of this call
 * (1 + retries and resends of the same request), `polls` its status polls, `retries` the
 * share of `retry.limit` used (failed attempts, failed polls and resends alike). A new
 * `send()` of the same intent — the UI's "try again" after a failure — is a new call
 * with its own budget: its numbers start again at 0, and the UI's state does the same.
 */

import type { IntentErrorContext } from '../errors/answer-once-error.js';
import type { ResolvedClientOptions } from '../options.js';
import { backoffDelay } from './backoff.js';

export interface IntentProgress {
  /** What the next request is: the send route (`sending`) or a status poll. */
  readonly phase: 'sending' | 'polling';
  /** Send-route requests that left (1-based once the first did). */
  readonly attempts: number;
  /** Status polls that left. */
  readonly polls: number;
  /** Retries taken from `retry.limit`. */
  readonly retries: number;
  /** 202s in a row the server answered without holding the poll: each raises the pacing floor. */
  readonly unheld: number;
  /** The send route's origin, once the first attempt left: the only one a `Location` may name. */
  readonly origin: string | undefined;
  /** Where polls go, once a 202 named it (or `statusUrl` did); `undefined`: resend to poll. */
  readonly statusUrl: string | undefined;
}

export const START: IntentProgress = {
  phase: 'sending',
  attempts: 0,
  polls: 0,
  retries: 0,
  unheld: 0,
  origin: undefined,
  statusUrl: undefined,
};

/** A send-route request left (the first, a retry of it, or a resend). */
export function attempt(progress: IntentProgress, url: string): IntentProgress {
  return { ...progress, attempts: progress.attempts + 1, origin: progress.origin ?? new URL(url).origin };
}

/** A status poll left. */
export function poll(progress: IntentProgress): IntentProgress {
  return { ...progress, polls: progress.polls + 1 };
}

/**
 * The server answered 202 (the intent is running): from now on the next request polls
 * `statusUrl` (or resends, without one). `held` says the server held this poll as long as
 * it said it would: a long-poll, which resets the pacing floor; otherwise it rises.
 */
export function accepted(progress: IntentProgress, statusUrl: string | undefined, held: boolean): IntentProgress {
  return { ...progress, phase: 'polling', statusUrl, unheld: held ? 0 : progress.unheld + 1 };
}

/** Takes one retry from the budget, or `undefined` when `limit` is spent. */
export function retry(progress: IntentProgress, limit: number): IntentProgress | undefined {
  return progress.retries >= limit ? undefined : { ...progress, retries: progress.retries + 1 };
}

/** The server reports the intent failed (or unknown): the original request goes again. */
export function resend(progress: IntentProgress): IntentProgress {
  return { ...progress, phase: 'sending', unheld: 0 };
}

/** What an error or a result reports about the intent's travel. */
export function contextOf(requestId: string, progress: IntentProgress): IntentErrorContext {
  return { requestId, attempts: progress.attempts, polls: progress.polls };
}

/**
 * The wait before the retry just taken (`progress.retries`): the server's `Retry-After`
 * capped at `maxRetryAfter`, else exponential backoff with full jitter.
 */
export function retryDelay(
  options: Pick<ResolvedClientOptions, 'retry'>,
  progress: IntentProgress,
  retryAfter: number | undefined,
): number {
  const { retry: policy } = options;
  return retryAfter === undefined
    ? backoffDelay(progress.retries, { base: policy.delay, cap: policy.backoffLimit, random: policy.random })
    : Math.min(retryAfter, policy.maxRetryAfter);
}

/**
 * The wait before the next poll after a 202. None after a poll the server held (the hold
 * was the wait) or before the first long-poll. Otherwise its `Retry-After` (else
 * `pollInterval`), capped at `maxRetryAfter`, but never below a floor that starts at
 * `minPollInterval` and doubles per unheld 202 in a row, up to `pollInterval`: a server
 * answering `202` + `Retry-After: 0` in a loop costs 250, 500, 1000, 1000… ms with the
 * defaults, not a tight loop.
 */
export function pollDelay(
  options: Pick<ResolvedClientOptions, 'pollInterval' | 'minPollInterval' | 'retry'>,
  progress: IntentProgress,
  retryAfter: number | undefined,
): number {
  if (progress.unheld === 0) return 0;
  const { pollInterval, minPollInterval } = options;
  const floor = Math.min(minPollInterval * 2 ** Math.min(progress.unheld - 1, 30), Math.max(pollInterval, minPollInterval));
  return Math.max(floor, Math.min(retryAfter ?? pollInterval, options.retry.maxRetryAfter));
}
