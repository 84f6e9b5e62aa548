import type { IdempotencyRecord, IdempotencyStore } from '../store/store.js';
import { type StoreCallContext, storeCall } from '../store/store-call.js';

/**
 * The result of a COMPLETED record that says "exhausted" (PROTOCOL.md § 5.7). Never what
 * the handler stores (its results are JSON objects) nor what the default codec writes
 * (JSON text never starts with `!`); `runOnce` refuses a codec that encodes to it.
 */
export const EXHAUSTED_RESULT = '!answer-once:intent-exhausted';

/** Whether a claim's run count is past `maxRuns`: the intent settles as exhausted instead of running. */
export function isPastBound(runs: number, maxRuns: number): boolean {
  return runs > maxRuns;
}

/** Whether a run is the last one `maxRuns` allows: its failure settles the intent as exhausted. */
export function isLastRun(runs: number, maxRuns: number): boolean {
  return runs >= maxRuns;
}

/** Whether `record` is an intent settled as exhausted: answered `intent-exhausted` from now on. */
export function isExhausted(record: IdempotencyRecord | null | undefined): boolean {
  return record?.state === 'completed' && record.result === EXHAUSTED_RESULT;
}

/**
 * Settles a claim past `maxRuns` (one claim more than the bound allows) as exhausted,
 * instead of running the work: ONE complete under the claim's token, kept
 * `completedTtlMs`. A write that finds the record fenced or gone changes nothing and
 * needs nothing: the work did not run, and the next claim is past the bound too.
 */
export async function settleExhausted(
  store: IdempotencyStore,
  key: string,
  claim: { readonly token: string; readonly runs: number },
  completedTtlMs: number,
  context: StoreCallContext,
): Promise<void> {
  const { token, runs } = claim;
  const written = await storeCall(
    'complete',
    key,
    () => store.complete(key, token, EXHAUSTED_RESULT, completedTtlMs),
    context,
  );
  if (written === 'written') context.report({ type: 'exhausted', key, runs });
}
