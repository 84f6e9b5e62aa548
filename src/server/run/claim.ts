import type { IdempotencyRecord, IdempotencyStore } from '../store/store.js';
import { type StoreCallContext, storeCall } from '../store/store-call.js';
import { isExhausted, isLastRun, isPastBound, settleExhausted } from './bound.js';

/** What a claim reads of the lease options. */
export interface ClaimOptions {
  readonly leaseMs: number;
  readonly maxRuns: number;
  readonly completedTtlMs: number;
}

/**
 * What claiming an intent came to:
 * - `run`: this caller holds it under `token` and runs the work (reported `acquired`);
 *   `last` when it is the last run `maxRuns` allows, whose failure is final (§ 5.7);
 *   `sentAt` when its `acquire` was sent (a stop watch need not look for an older stop);
 * - `exhausted`: it ran `maxRuns` times — settled as exhausted now, by a claim past the
 *   bound, or before; the work does not run;
 * - `mismatch`: the ID was used with another fingerprint (the caller names the error);
 * - `found`: someone else's record with this fingerprint — answered, failed, or running.
 */
export type Claim =
  | {
      readonly kind: 'run';
      readonly token: string;
      readonly generation: number | undefined;
      readonly takeover: boolean;
      readonly retry: boolean;
      readonly runs: number;
      readonly last: boolean;
      readonly sentAt: number;
    }
  | { readonly kind: 'exhausted' }
  | { readonly kind: 'mismatch' }
  | { readonly kind: 'found'; readonly record: IdempotencyRecord };

/**
 * The claim step every run starts with, for the handler and `runOnce` alike: one
 * `acquire`, then the run bound (PROTOCOL.md § 5.7), then the fingerprint (§ 5).
 */
export async function claimIntent(
  store: IdempotencyStore,
  key: string,
  fingerprint: string,
  options: ClaimOptions,
  context: StoreCallContext,
): Promise<Claim> {
  const sentAt = Date.now();
  const claim = await storeCall('acquire', key, () => store.acquire(key, fingerprint, options.leaseMs), context);
  if (claim.acquired) {
    const { token, generation, takeover, retry, runs } = claim;
    if (isPastBound(runs, options.maxRuns)) {
      // One claim past the bound: settled as exhausted instead of running.
      await settleExhausted(store, key, claim, options.completedTtlMs, context);
      return { kind: 'exhausted' };
    }
    context.report({ type: 'acquired', key, takeover, retry });
    return { kind: 'run', token, generation, takeover, retry, runs, last: isLastRun(runs, options.maxRuns), sentAt };
  }
  const { record } = claim;
  if (record.fingerprint !== fingerprint) return { kind: 'mismatch' };
  if (isExhausted(record)) return { kind: 'exhausted' };
  return { kind: 'found', record };
}
