import { LeaseLostError } from './errors.js';
import { emit, type IdempotencyEventListener } from './events.js';
import type { IdempotencyStore } from './store.js';

/** What the work decided: store it as the answer, or record the attempt as failed. */
export type Verdict<T> =
  | { readonly kind: 'complete'; readonly result: string; readonly value: T }
  | {
      readonly kind: 'fail';
      readonly error: string;
      readonly value: T;
      /** What went wrong, for the `failed` event (the stored `error` may hide it). */
      readonly cause?: unknown;
    };

/**
 * How the verdict's write went: `stored`; `fenced` (a successor holds the intent, the
 * verdict was discarded); or `store-error` (the store failed, nothing is known).
 */
export type WriteOutcome = 'stored' | 'fenced' | 'store-error';

export interface HeldRunOptions {
  readonly leaseMs: number;
  readonly heartbeatMs: number;
  readonly completedTtlMs: number;
  readonly failedTtlMs: number;
  readonly onEvent?: IdempotencyEventListener;
  /** Aborts the work's signal too (the caller gave up). */
  readonly signal?: AbortSignal;
}

/**
 * Runs `work` while holding `key` under `token`: renews the lease every `heartbeatMs`
 * (one renew in flight at most, the timer cleared in `finally`), aborts the work's
 * signal when a renew finds the lease taken over, then writes the verdict — fenced by
 * the token, so a zombie's write changes nothing.
 */
export async function runHeld<T>(
  store: IdempotencyStore,
  key: string,
  token: string,
  work: (signal: AbortSignal) => Promise<Verdict<T>>,
  options: HeldRunOptions,
): Promise<{ readonly verdict: Verdict<T>; readonly write: WriteOutcome }> {
  const { leaseMs, heartbeatMs, onEvent } = options;
  const lease = new AbortController();
  const signal = options.signal ? AbortSignal.any([lease.signal, options.signal]) : lease.signal;
  let done = false;
  let renewing = false;
  const heartbeat = setInterval(() => {
    if (renewing) return;
    renewing = true;
    // Through a promise: a store that throws synchronously must not throw out of a timer.
    new Promise<boolean>((resolve) => resolve(store.renew(key, token, leaseMs))).then(
      (held) => {
        renewing = false;
        if (held || done) return;
        clearInterval(heartbeat);
        emit(onEvent, { type: 'lease-lost', key });
        lease.abort(new LeaseLostError('answer-once: another worker took this intent over.'));
      },
      (error: unknown) => {
        renewing = false;
        // The next beat tries again; if the lease lapses meanwhile, fencing decides.
        if (!done) emit(onEvent, { type: 'store-error', key, operation: 'renew', error });
      },
    );
  }, heartbeatMs);

  let verdict: Verdict<T>;
  try {
    verdict = await work(signal);
  } finally {
    done = true;
    clearInterval(heartbeat);
  }

  const operation = verdict.kind;
  try {
    const written =
      verdict.kind === 'complete'
        ? await store.complete(key, token, verdict.result, options.completedTtlMs)
        : await store.fail(key, token, verdict.error, options.failedTtlMs);
    if (!written) {
      emit(onEvent, { type: 'fenced', key, operation });
      return { verdict, write: 'fenced' };
    }
  } catch (error) {
    emit(onEvent, { type: 'store-error', key, operation, error });
    return { verdict, write: 'store-error' };
  }
  emit(
    onEvent,
    verdict.kind === 'complete' ? { type: 'completed', key } : { type: 'failed', key, error: verdict.cause ?? verdict.value },
  );
  return { verdict, write: 'stored' };
}
