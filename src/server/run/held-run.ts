import { LeaseLostError } from '../errors.js';
import type { Reporter } from '../events.js';
import type { IdempotencyStore, WriteResult } from '../store/store.js';
import { isPermanentStoreError, withStoreDeadline } from '../store/store-call.js';
import { EXHAUSTED_RESULT, isLastRun } from './bound.js';
import { Holder } from './holder.js';
import type { ResolvedLeaseOptions } from './lease-options.js';

/** What the work came to: store it as the answer, or record the attempt as failed. */
export type WorkOutcome<T> =
  | { readonly kind: 'complete'; readonly result: string; readonly value: T }
  | {
      readonly kind: 'fail';
      readonly error: string;
      readonly value: T;
      /** What went wrong, for the `failed` event (the stored `error` may hide it). */
      readonly cause?: unknown;
    };

/**
 * How the outcome's write went: `stored`; `fenced` (a successor holds the intent, the
 * outcome was discarded); `lost` (the record vanished and could not be claimed again:
 * nothing stored, but nobody else holds the intent either); or `store-error` (the store
 * failed or timed out, nothing is known).
 */
export type WriteOutcome = 'stored' | 'fenced' | 'lost' | 'store-error';

export interface HeldRunOptions extends ResolvedLeaseOptions {
  readonly fingerprint: string;
  /** The claim's run count (`AcquireResult.runs`): at `maxRuns`, a failure is final. */
  readonly runs: number;
  readonly report: Reporter;
  /** Aborts the work's signal too (the caller gave up). */
  readonly signal?: AbortSignal | undefined;
  /**
   * When the lease was last renewed another way (`Date.now()`; an append that carried
   * `leaseMs`, § 14.9): a heartbeat finds it fresh enough and skips its own renew.
   */
  readonly renewedAt?: (() => number) | undefined;
  /**
   * The run's claim, when the caller shares it with the work (a streamed answer's appends
   * claim a vanished record too). Absent: one is made for `token`.
   */
  readonly holder?: Holder | undefined;
}

/** The work ran past `maxRunMs`; the reason its signal aborts with. */
export class RunTimeoutError extends Error {
  override name = 'RunTimeoutError' as const;
}

/**
 * Runs `work` while holding `key` under `token`, then writes its outcome — fenced by the
 * token, so a zombie's write changes nothing.
 *
 * - The lease is renewed every `heartbeatMs` (one renew in flight at most, each under the
 *   store deadline) until the outcome's write has settled: a slow `complete` never lets
 *   the lease lapse and a resend run the work again meanwhile. A beat is skipped while
 *   `renewedAt` is recent enough that the next beat still has `heartbeatMs` of lease
 *   left (a streamed answer's appends renew it: no extra round trips while they flow).
 * - A renew answered `fenced` aborts the work's signal (a successor holds the intent).
 *   One answered `gone` (the store lost the record) claims the intent again; an outcome
 *   ready meanwhile waits for that claim (bounded by the store deadline) and is written
 *   under the token it got.
 * - Past `maxRunMs` the signal aborts and the outcome is `timedOut`'s, even if the work
 *   never returns.
 * - A write answered `gone` claims the intent again and writes once more; the outcome's
 *   value is delivered either way (only a successor's token fences it).
 * - A write that fails transiently (the store restarting, a dropped connection) is tried
 *   again, with backoff, within one `storeTimeoutMs` in all and while the lease the store
 *   last confirmed still has a heartbeat left: a store blip as the answer ends does not
 *   cost the work a second run.
 * - The failure of the last run `maxRuns` allows is written as the exhausted answer
 *   (`bound.ts`), not as FAILED: in the same one write, the intent is final.
 */
export async function runHeld<T>(
  store: IdempotencyStore,
  key: string,
  token: string,
  work: (signal: AbortSignal) => Promise<WorkOutcome<T>>,
  timedOut: (reason: RunTimeoutError) => WorkOutcome<T>,
  options: HeldRunOptions,
): Promise<{ readonly outcome: WorkOutcome<T>; readonly write: WriteOutcome }> {
  const { leaseMs, heartbeatMs, report, storeTimeoutMs } = options;
  const lease = new AbortController();
  const signal = options.signal ? AbortSignal.any([lease.signal, options.signal]) : lease.signal;
  const holder = options.holder ?? new Holder(store, key, token, undefined, options);
  /** When the store last confirmed the lease (the claim was made just before the run). */
  let confirmedAt = Date.now();
  holder.onReclaimed(() => {
    confirmedAt = Date.now();
  });
  let writing = false;
  let renewing = false;
  const loseLease = (): void => {
    clearInterval(heartbeat);
    report({ type: 'lease-lost', key });
    lease.abort(new LeaseLostError('answer-once: another worker took this intent over.'));
  };
  /** A renewal younger than this leaves the next beat `heartbeatMs` of lease, as a beat's own does. */
  const fresh = leaseMs - 2 * heartbeatMs;
  const heartbeat = setInterval(() => {
    if (renewing) return;
    if (options.renewedAt && Date.now() - options.renewedAt() < fresh) return;
    renewing = true;
    const renewed = holder.token;
    withStoreDeadline(() => store.renew(key, renewed, leaseMs), 'renew', storeTimeoutMs)
      .then(async (result) => {
        if (result === 'written') confirmedAt = Date.now();
        // While the outcome is being written, its own write decides (a fenced renew may be ours completing).
        if (writing || result === 'written' || lease.signal.aborted) return;
        if (result === 'fenced') return loseLease();
        if (!(await holder.reclaim('renew', renewed))) loseLease();
      })
      .catch((error: unknown) => {
        // The next beat tries again; if the lease lapses meanwhile, fencing decides.
        if (!writing) report({ type: 'store-error', key, operation: 'renew', error });
      })
      .finally(() => {
        renewing = false;
      });
  }, heartbeatMs);

  let timer: ReturnType<typeof setTimeout> | undefined;
  let outcome: WorkOutcome<T>;
  try {
    const deadline = new Promise<WorkOutcome<T>>((resolve) => {
      timer = setTimeout(() => {
        const reason = new RunTimeoutError(`answer-once: the work ran longer than maxRunMs (${options.maxRunMs} ms).`);
        report({ type: 'run-timeout', key, maxRunMs: options.maxRunMs });
        lease.abort(reason);
        resolve(timedOut(reason));
      }, options.maxRunMs);
    });
    outcome = await Promise.race([work(signal), deadline]);
  } catch (error) {
    clearInterval(heartbeat);
    throw error;
  } finally {
    clearTimeout(timer);
  }

  writing = true;
  try {
    // A claim still in flight is ours: write under its token, or it fences our own write.
    await holder.settled();
    const leaseEnd = (): number => Math.max(confirmedAt, options.renewedAt?.() ?? 0) + leaseMs - heartbeatMs;
    return { outcome, write: await write(store, key, holder, outcome, options, leaseEnd) };
  } finally {
    clearInterval(heartbeat);
  }
}

/** The first pause before a failed write is tried again; doubled each time, up to {@link WRITE_RETRY_MAX_MS}. */
const WRITE_RETRY_MS = 50;
const WRITE_RETRY_MAX_MS = 1_000;

/**
 * Writes the outcome under the holder's token; a `gone` record is claimed again and written once
 * more. A transient failure is tried again until one store deadline has passed or
 * `leaseEnd()` would (bounded: the pauses double, and the deadline never moves).
 */
async function write<T>(
  store: IdempotencyStore,
  key: string,
  holder: Holder,
  outcome: WorkOutcome<T>,
  options: HeldRunOptions,
  leaseEnd: () => number,
): Promise<WriteOutcome> {
  const { report } = options;
  const exhausted = outcome.kind === 'fail' && isLastRun(options.runs, options.maxRuns);
  const operation = exhausted ? 'complete' : outcome.kind;
  const settleOnce = (holder: string): Promise<WriteResult> =>
    withStoreDeadline(
      () => {
        if (outcome.kind === 'complete') return store.complete(key, holder, outcome.result, options.completedTtlMs);
        if (exhausted) return store.complete(key, holder, EXHAUSTED_RESULT, options.completedTtlMs);
        return store.fail(key, holder, outcome.error, options.failedTtlMs);
      },
      operation,
      options.storeTimeoutMs,
    );
  // One store deadline in all for the write, tries included.
  const giveUpAt = Date.now() + options.storeTimeoutMs;
  const settle = async (holder: string): Promise<WriteResult> => {
    for (let pause = WRITE_RETRY_MS; ; pause = Math.min(2 * pause, WRITE_RETRY_MAX_MS)) {
      try {
        return await settleOnce(holder);
      } catch (error) {
        if (isPermanentStoreError(error) || Date.now() + pause > Math.min(leaseEnd(), giveUpAt)) throw error;
        report({ type: 'store-error', key, operation, error });
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  };
  try {
    const token = holder.token;
    let result = await settle(token);
    if (result === 'gone') {
      if (!(await holder.reclaim(operation, token))) return 'lost';
      result = await settle(holder.token);
      if (result === 'gone') return 'lost';
    }
    if (result === 'fenced') {
      report({ type: 'fenced', key, operation });
      return 'fenced';
    }
  } catch (error) {
    report({ type: 'store-error', key, operation, error });
    return 'store-error';
  }
  report(
    outcome.kind === 'complete'
      ? { type: 'completed', key }
      : { type: 'failed', key, error: outcome.cause ?? outcome.value },
  );
  if (exhausted) report({ type: 'exhausted', key, runs: options.runs });
  return 'stored';
}
