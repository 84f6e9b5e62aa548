import { type Codec, decodeError, encodeError, jsonCodec } from './codec.js';
import {
  IntentFailedError,
  IntentInProgressError,
  LeaseLostError,
  RequestIdReusedError,
} from './errors.js';
import { emit, type IdempotencyEventListener } from './events.js';
import { runHeld } from './held-run.js';
import { assertNumber, type LeaseOptions, normalizeLeaseOptions, type ResolvedLeaseOptions } from './lease-options.js';
import { storeCall } from './store-call.js';
import type { IdempotencyStore } from './store.js';

/** Options of {@link runOnce}. */
export interface RunOnceOptions<T> extends LeaseOptions {
  /**
   * What identifies the work's input (a hash of the message body). The same key with
   * another fingerprint throws `RequestIdReusedError` instead of replaying.
   * @default ''
   */
  fingerprint?: string;
  /**
   * How long to wait for another live worker of the same key before throwing
   * `IntentInProgressError`. `0` never waits.
   * @default 30_000
   */
  waitMs?: number;
  /**
   * Turns the result into the stored string and back.
   * @default JSON
   */
  codec?: Codec<T>;
  /** Called on every step: acquired, completed, replayed, fenced, store errors… @default undefined */
  onEvent?: IdempotencyEventListener;
  /** Stops waiting, and aborts the signal the work receives. @default undefined */
  signal?: AbortSignal;
}

interface ResolvedRunOnceOptions<T> extends ResolvedLeaseOptions {
  readonly fingerprint: string;
  readonly waitMs: number;
  readonly codec: Codec<T>;
  readonly onEvent: IdempotencyEventListener | undefined;
  readonly signal: AbortSignal | undefined;
}

export function normalizeRunOnceOptions<T>(options: RunOnceOptions<T> = {}): ResolvedRunOnceOptions<T> {
  const { fingerprint = '', waitMs = 30_000, codec = jsonCodec as Codec<T>, onEvent, signal } = options;
  if (typeof fingerprint !== 'string') throw new TypeError('answer-once: `fingerprint` must be a string.');
  assertNumber('waitMs', waitMs);
  if (typeof codec?.encode !== 'function' || typeof codec.decode !== 'function') {
    throw new TypeError('answer-once: `codec` must have encode() and decode().');
  }
  if (onEvent !== undefined && typeof onEvent !== 'function') {
    throw new TypeError('answer-once: `onEvent` must be a function.');
  }
  return { ...normalizeLeaseOptions(options), fingerprint, waitMs, codec, onEvent, signal };
}

/** What the work receives. */
export interface RunContext {
  /** The store key being worked on. */
  readonly key: string;
  /** Aborted when the lease was lost to another worker, or the caller's `signal` aborted. */
  readonly signal: AbortSignal;
  /** A dead worker's expired lease was taken over. */
  readonly takeover: boolean;
  /** The previous attempt had failed. */
  readonly retry: boolean;
}

/** The answer of an intent, and whether it was replayed rather than computed here. */
export interface RunOnceResult<T> {
  readonly value: T;
  readonly replayed: boolean;
}

/**
 * Runs `work` at most once per `key` across every worker sharing `store` — the queue
 * consumer's exactly-one-model-call. A stored answer is replayed (`replayed: true`); a
 * live worker is waited for; a dead one is taken over; a failed attempt runs again. While
 * `work` runs its lease is renewed. The work's error is stored as FAILED and rethrown.
 *
 * Throws `RequestIdReusedError` (other fingerprint), `IntentInProgressError` (waited
 * `waitMs` in vain), `LeaseLostError` (this worker was fenced out; its result was
 * discarded), `StoreUnavailableError` (the store failed before the work ran).
 */
export async function runOnce<T>(
  store: IdempotencyStore,
  key: string,
  work: (context: RunContext) => Promise<T>,
  options?: RunOnceOptions<T>,
): Promise<RunOnceResult<T>> {
  const resolved = normalizeRunOnceOptions(options);
  const { fingerprint, leaseMs, codec, onEvent, signal } = resolved;
  const deadline = Date.now() + resolved.waitMs;
  for (;;) {
    signal?.throwIfAborted();
    const acquired = await storeCall('acquire', key, () => store.acquire(key, fingerprint, leaseMs), { onEvent });
    if (acquired.acquired) {
      const { takeover, retry } = acquired;
      emit(onEvent, { type: 'acquired', key, takeover, retry });
      return settle(await execute(store, key, acquired.token, { takeover, retry }, work, resolved));
    }
    const { record } = acquired;
    if (record.fingerprint !== fingerprint) {
      throw new RequestIdReusedError(`answer-once: ${key} was used with another fingerprint.`);
    }
    if (record.state === 'completed') {
      emit(onEvent, { type: 'replayed', key });
      return { value: codec.decode(record.result), replayed: true };
    }
    if (record.state === 'failed') {
      // acquire re-runs a FAILED intent itself; reaching here means the store did not.
      throw new IntentFailedError(`answer-once: ${key} failed.`, { cause: decodeError(record.error) });
    }
    emit(onEvent, { type: 'in-progress', key });
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new IntentInProgressError(`answer-once: ${key} is still running elsewhere.`);
    await storeCall('wait', key, () => store.wait(key, remaining, signal), { onEvent });
  }
}

type Executed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

async function execute<T>(
  store: IdempotencyStore,
  key: string,
  token: string,
  attempt: { readonly takeover: boolean; readonly retry: boolean },
  work: (context: RunContext) => Promise<T>,
  options: ResolvedRunOnceOptions<T>,
): Promise<{ readonly outcome: Executed<T>; readonly fenced: boolean }> {
  const { verdict, write } = await runHeld<Executed<T>>(
    store,
    key,
    token,
    async (signal) => {
      try {
        const value = await work({ key, signal, ...attempt });
        return { kind: 'complete', result: options.codec.encode(value), value: { ok: true, value } };
      } catch (error) {
        return { kind: 'fail', error: encodeError(error), value: { ok: false, error }, cause: error };
      }
    },
    options,
  );
  return { outcome: verdict.value, fenced: write === 'fenced' };
}

function settle<T>({ outcome, fenced }: { readonly outcome: Executed<T>; readonly fenced: boolean }): RunOnceResult<T> {
  if (fenced) {
    throw new LeaseLostError('answer-once: this worker lost its lease; its result was discarded.', {
      cause: outcome.ok ? undefined : outcome.error,
    });
  }
  if (!outcome.ok) throw outcome.error;
  return { value: outcome.value, replayed: false };
}
