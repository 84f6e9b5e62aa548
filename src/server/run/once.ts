import { functionOption, optionsObject, stringOption, timerOption } from '../../core/options.js';
import {
  AttemptFailedError,
  FingerprintMismatchError,
  IntentExhaustedError,
  IntentInProgressError,
  LeaseLostError,
} from '../errors.js';
import { type AnswerOutcome, type IdempotencyEventListener, type Reporter, reporter } from '../events.js';
import { countAvoided } from '../store/avoided.js';
import type { IdempotencyStore } from '../store/store.js';
import { storeCall } from '../store/store-call.js';
import { type Usage, UsageReport } from '../usage.js';
import { EXHAUSTED_RESULT } from './bound.js';
import { type Claim, claimIntent } from './claim.js';
import { type Codec, decodeError, encodeError, jsonCodec, unwrapRunResult, wrapRunResult } from './codec.js';
import { runHeld } from './held-run.js';
import { Holder } from './holder.js';
import { type LeaseOptions, normalizeLeaseOptions, type ResolvedLeaseOptions } from './lease-options.js';
import { type BeginStepOptions, type BegunStep, StepJournal } from './step-journal.js';
import {
  type JournalOptions,
  normalizeJournalOptions,
  type ResolvedJournalOptions,
  type StepContext,
  type StepOptions,
} from './step-options.js';

/** Options of {@link runOnce}. */
export interface RunOnceOptions<T> extends LeaseOptions, JournalOptions {
  /**
   * What identifies the work's input (a hash of the message body). The same key with
   * another fingerprint throws `FingerprintMismatchError` instead of replaying.
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
  /**
   * The ID every event carries as `requestId` (the message's business ID, say).
   * @default the key
   */
  requestId?: string;
  /** Stops waiting, and aborts the signal the work receives. @default undefined */
  signal?: AbortSignal;
}

/** The defaults of {@link RunOnceOptions} (the lease's are `LEASE_DEFAULTS`). */
const RUN_ONCE_DEFAULTS = Object.freeze({ fingerprint: '', waitMs: 30_000 });

interface ResolvedRunOnceOptions<T> extends ResolvedLeaseOptions, ResolvedJournalOptions {
  readonly store: IdempotencyStore;
  readonly fingerprint: string;
  readonly waitMs: number;
  readonly codec: Codec<T>;
  readonly report: Reporter;
  /** Someone listens (`onEvent`): only then is a call avoided counted, a store write. */
  readonly listening: boolean;
  readonly signal: AbortSignal | undefined;
}

function normalizeRunOnceOptions<T>(
  store: IdempotencyStore,
  key: string,
  given: RunOnceOptions<T> | undefined,
): ResolvedRunOnceOptions<T> {
  const options = optionsObject(given, 'runOnce() options');
  const codec = options.codec ?? (jsonCodec as Codec<T>);
  if (typeof codec.encode !== 'function' || typeof codec.decode !== 'function') {
    throw new TypeError('answer-once: `codec` must have encode() and decode().');
  }
  const onEvent = functionOption(options.onEvent, 'onEvent');
  const requestId = stringOption(options.requestId ?? key, 'requestId');
  return {
    ...normalizeLeaseOptions(options),
    ...normalizeJournalOptions(options),
    store,
    fingerprint: stringOption(options.fingerprint ?? RUN_ONCE_DEFAULTS.fingerprint, 'fingerprint'),
    waitMs: timerOption(options.waitMs ?? RUN_ONCE_DEFAULTS.waitMs, 'waitMs'),
    codec,
    report: reporter(onEvent, { requestId }),
    listening: onEvent !== undefined,
    signal: options.signal,
  };
}

/** What the work receives. */
export interface RunContext {
  /** The store key being worked on. */
  readonly key: string;
  /**
   * Aborted when the lease was lost to another worker, the work ran past `maxRunMs`, or
   * the caller's `signal` aborted.
   */
  readonly signal: AbortSignal;
  /** A dead worker's expired lease was taken over. */
  readonly takeover: boolean;
  /** The previous attempt had failed. */
  readonly retry: boolean;
  /**
   * Keeps what this run cost with its result (`{ inputTokens, outputTokens }` and any
   * other non-negative integer counter); a replay returns it as `usage`, and reports it
   * as the tokens avoided. The last report wins. Throws a `TypeError` naming a bad counter.
   */
  readonly reportUsage: (usage: Usage) => void;
  /**
   * Runs `fn` as the step `name`, once across every run of this intent (PROTOCOL.md § 15):
   * the first run calls `fn` and records its outcome (value or error, and the usage it
   * reports) in the intent's step journal; a later run (after a crash, a failure, a
   * takeover) gets the recorded value — or the recorded error, rethrown as an `Error` with
   * its name and message — without calling `fn`. A step started by a run that died inside
   * it is uncertain: `options.reconcile` decides, else `options.repeat` (`'never'`, the
   * default: `StepUncertainError`; `'safe'`: it runs again). Steps are told apart by name
   * and occurrence (a loop's third `step('search')` is the third in every run), so the
   * work must call them in the same order each run. `fn` gets the step's `key` to send as
   * an outbound `Idempotency-Key`. Values are kept as JSON: every run, the first too, gets
   * what `JSON.parse(JSON.stringify(value))` gives. Needs a store with a step journal.
   */
  readonly step: <S>(name: string, fn: (step: StepContext) => S | Promise<S>, options?: StepOptions<S>) => Promise<S>;
  /**
   * The two-phase form of `step`, for a step whose outcome is known only later (a model's
   * streamed answer): one store call looks the step up and answers its recorded outcome,
   * `uncertain`, or an open step to `finish` with the outcome once it is known.
   */
  readonly beginStep: (name: string, options?: BeginStepOptions) => Promise<BegunStep>;
}

/** The answer of an intent, and whether it was replayed rather than computed here. */
export interface RunOnceResult<T> {
  readonly value: T;
  readonly replayed: boolean;
  /** What the run that made `value` reported it cost (`reportUsage`), if it did. */
  readonly usage?: Usage;
}

/**
 * Runs `work` at most once per `key` across every worker sharing `store` — the queue
 * consumer's exactly-one-model-call. A stored answer is replayed (`replayed: true`); a
 * live worker is waited for; a dead one is taken over; a failed attempt runs again, up
 * to `maxRuns` runs in all. While `work` runs its lease is renewed. The work's error is
 * stored as FAILED (the last allowed run's as exhausted) and rethrown.
 *
 * Throws `FingerprintMismatchError` (other fingerprint), `IntentInProgressError` (waited
 * `waitMs` in vain), `LeaseLostError` (this worker was fenced out; its result was
 * discarded), `IntentExhaustedError` (the work already ran `maxRuns` times for this key;
 * it does not run again), `StoreUnavailableError` / `StoreFailedError` (the store failed
 * before the work ran), `AttemptFailedError` (the store handed back a FAILED record
 * instead of letting it run again).
 */
export async function runOnce<T>(
  store: IdempotencyStore,
  key: string,
  work: (context: RunContext) => Promise<T>,
  given?: RunOnceOptions<T>,
): Promise<RunOnceResult<T>> {
  const options = normalizeRunOnceOptions(store, key, given);
  const startedAt = performance.now();
  // What a run of this call paid and was spared: its answer, or its failure, reports it.
  const ran = new UsageReport();
  const answered = (outcome: AnswerOutcome, usage?: Usage, avoided?: boolean): void => {
    const stepsAvoided = ran.avoided;
    options.report({
      type: 'answered',
      outcome,
      ...(avoided && { avoided }),
      firstByteMs: performance.now() - startedAt,
      ...(usage ? { usage } : {}),
      ...(stepsAvoided && { stepsAvoided }),
    });
  };
  try {
    const result = await claimAndRun(key, work, options, ran);
    if (!result.replayed) answered('ran', result.usage);
    else {
      // A redelivered message is a call avoided once per key (PROTOCOL.md § 7.6).
      const context = { report: options.report, timeoutMs: options.storeTimeoutMs };
      const avoided = options.listening && (await countAvoided(options.store, key, context)) !== null;
      answered('replayed', avoided ? result.usage : undefined, avoided);
    }
    return result;
  } catch (error) {
    answered(outcomeOfError(error), ran.value);
    throw error;
  }
}

/** What a `runOnce` that threw `error` came to. */
function outcomeOfError(error: unknown): AnswerOutcome {
  if (error instanceof IntentInProgressError) return 'in_progress';
  if (error instanceof FingerprintMismatchError) return 'conflict';
  if (error instanceof IntentExhaustedError) return 'exhausted';
  return 'failed';
}

async function claimAndRun<T>(
  key: string,
  work: (context: RunContext) => Promise<T>,
  options: ResolvedRunOnceOptions<T>,
  usage: UsageReport,
): Promise<RunOnceResult<T>> {
  const { fingerprint, codec, report, signal, store } = options;
  const context = { report, timeoutMs: options.storeTimeoutMs };
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    signal?.throwIfAborted();
    const claim = await claimIntent(store, key, fingerprint, options, context);
    if (claim.kind === 'run') return execute(key, claim, work, options, usage);
    if (claim.kind === 'exhausted') throw exhaustedError(key);
    if (claim.kind === 'mismatch') {
      throw new FingerprintMismatchError(`answer-once: ${key} was used with another fingerprint.`);
    }
    const { record } = claim;
    if (record.state === 'completed') {
      const { encoded, usage } = unwrapRunResult(record.result);
      report({ type: 'replayed', key, ...(usage ? { usage } : {}), ...(record.avoided && { counted: true }) });
      return { value: codec.decode(encoded), replayed: true, ...(usage ? { usage } : {}) };
    }
    if (record.state === 'failed') {
      // acquire re-runs a FAILED intent itself; reaching here means the store did not.
      throw new AttemptFailedError(`answer-once: ${key} failed.`, { cause: decodeError(record.error) });
    }
    report({ type: 'in-progress', key });
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new IntentInProgressError(`answer-once: ${key} is still running elsewhere.`);
    await storeCall('wait', key, () => store.wait(key, remaining, signal), context, remaining);
  }
}

function exhaustedError(key: string): IntentExhaustedError {
  return new IntentExhaustedError(`answer-once: ${key} already ran as many times as maxRuns allows; it will not run again.`);
}

type Executed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

async function execute<T>(
  key: string,
  claim: Extract<Claim, { kind: 'run' }>,
  work: (context: RunContext) => Promise<T>,
  options: ResolvedRunOnceOptions<T>,
  usage: UsageReport,
): Promise<RunOnceResult<T>> {
  const { store } = options;
  const { token, takeover, retry, runs } = claim;
  const holder = new Holder(store, key, token, undefined, options);
  const { outcome, write } = await runHeld<Executed<T>>(
    store,
    key,
    token,
    async (signal) => {
      const { step, begin: beginStep } = new StepJournal(store, key, holder, signal, { ...options, usage });
      try {
        const value = await work({ key, signal, takeover, retry, reportUsage: usage.report, step, beginStep });
        const encoded = options.codec.encode(value);
        if (encoded === EXHAUSTED_RESULT) {
          throw new TypeError(
            `answer-once: \`codec.encode\` returned "${EXHAUSTED_RESULT}", the result reserved for an exhausted intent.`,
          );
        }
        const result = wrapRunResult(encoded, usage.value);
        return { kind: 'complete', result, value: { ok: true, value } };
      } catch (error) {
        return { kind: 'fail', error: encodeError(error), value: { ok: false, error }, cause: error };
      }
    },
    (reason) => ({ kind: 'fail', error: encodeError(reason), value: { ok: false, error: reason }, cause: reason }),
    { ...options, runs, holder },
  );
  const executed = outcome.value;
  if (write === 'fenced') {
    throw new LeaseLostError('answer-once: this worker lost its lease; its result was discarded.', {
      cause: executed.ok ? undefined : executed.error,
    });
  }
  if (!executed.ok) throw executed.error;
  return { value: executed.value, replayed: false, ...(usage.value ? { usage: usage.value } : {}) };
}
