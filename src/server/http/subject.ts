import { PREFER_HEADER } from '../../core/headers.js';
import { parsePreferWait } from '../../core/prefer.js';
import { type Reporter, reporter } from '../events.js';
import type { Scope } from '../store/key.js';
import type { StoreCallContext } from '../store/store-call.js';
import type { ResolvedHandlerOptions } from './handler-options.js';
import type { RequestMeter } from './request-meter.js';

/** Who an intent's events and store calls are about: its reporter and store-call context. */
export interface Subject {
  readonly report: Reporter;
  readonly context: StoreCallContext;
}

/**
 * The reporter and store-call context of one intent's events (with its user if the app
 * opts in), through the request's meter when the app listens.
 */
export function subjectOf(
  requestId: string,
  scope: Scope,
  options: ResolvedHandlerOptions,
  meter: RequestMeter | undefined,
): Subject {
  const subject = options.eventsIncludeUser ? { requestId, user: scope.user } : { requestId };
  const report = meter ? meter.reporter(subject) : reporter(options.onEvent, subject);
  return {
    report,
    context: { report, timeoutMs: options.storeTimeoutMs, retryAfterSeconds: options.retryAfterSeconds, requestId },
  };
}

/** The request's `Prefer: wait` in milliseconds, capped at `maxWaitMs`; 0 without one. */
export function appliedWaitMs(request: Request, options: ResolvedHandlerOptions): number {
  const seconds = parsePreferWait(request.headers.get(PREFER_HEADER));
  return seconds === undefined ? 0 : Math.min(seconds * 1000, options.maxWaitMs);
}
