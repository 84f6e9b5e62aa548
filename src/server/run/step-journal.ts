import { LeaseLostError } from '../errors.js';
import type { Reporter } from '../events.js';
import { isStepStore, type StepStart, type StepStore } from '../store/step-store.js';
import type { IdempotencyStore, WriteResult } from '../store/store.js';
import { storeCall } from '../store/store-call.js';
import { type Usage, UsageReport } from '../usage.js';
import { StepOutcomeTooLargeError, StepUncertainError } from './step-errors.js';
import { checkStepName, stepKey } from './step-key.js';
import {
  normalizeStepOptions,
  type ResolvedJournalOptions,
  type StepContext,
  type StepInfo,
  type StepOptions,
  type StepRepeat,
} from './step-options.js';
import { decodeStepOutcome, encodeStepOutcome, exceedsBytes, type StepOutcome } from './step-outcome.js';

/** A step a former run recorded: its outcome, to use instead of running it. */
export interface RecordedStep extends StepInfo {
  readonly state: 'recorded';
  readonly outcome: StepOutcome;
}

/** A step this run started: run it, then `finish` it (not finishing it leaves it uncertain). */
export interface OpenStep extends StepInfo {
  readonly state: 'open';
  /**
   * Records the step's outcome and answers it as recorded (a value as JSON gives it back).
   * Not recorded, and answered as given: an error of a step safe to repeat (a later run
   * tries again), and any outcome once the run's signal has aborted (the step was cut: it
   * stays started without outcome). Throws `StepOutcomeTooLargeError` past `maxStepBytes`,
   * a `TypeError` for a value that is not JSON, `LeaseLostError` when the run no longer
   * holds the intent — in each case nothing is recorded.
   */
  finish(outcome: StepOutcome): Promise<StepOutcome>;
}

/** A step a former run started and recorded no outcome for: whether it happened is unknown. */
export interface UncertainStep extends StepInfo {
  readonly state: 'uncertain';
  /** The error to give the app (or the model) when the step is not run again. */
  readonly error: StepUncertainError;
  /** Starts it again, with the same key (a lookup said it was not done). */
  restart(): Promise<OpenStep | RecordedStep>;
  /** Records `value` as its outcome without running it (a lookup found it done). */
  record(value: unknown): Promise<StepOutcome>;
}

export type BegunStep = RecordedStep | OpenStep | UncertainStep;

/** Options of `ctx.beginStep`: the step's own options without `reconcile`. */
export type BeginStepOptions = Omit<StepOptions, 'reconcile'>;

interface JournalSetup extends ResolvedJournalOptions {
  readonly storeTimeoutMs: number;
  readonly report: Reporter;
  /** The run's usage: each step that ran here or was taken from the journal adds the usage it reported. */
  readonly usage: UsageReport;
}

/**
 * The steps of one run of an intent (PROTOCOL.md § 15): each named step is looked up in
 * the intent's journal — one store call — and either answered from it or started, then
 * finished with one more. Steps are told apart by name and occurrence: the third
 * `step('search')` of a run is the third in every run of the intent.
 */
export class StepJournal {
  readonly #store: StepStore | undefined;
  readonly #storeName: string;
  readonly #key: string;
  readonly #holder: { readonly token: string };
  readonly #signal: AbortSignal;
  readonly #setup: JournalSetup;
  readonly #occurrences = new Map<string, number>();

  constructor(
    store: IdempotencyStore,
    key: string,
    holder: { readonly token: string },
    signal: AbortSignal,
    setup: JournalSetup,
  ) {
    this.#store = isStepStore(store) ? store : undefined;
    const named = (store.constructor as { name?: unknown } | undefined)?.name;
    this.#storeName = typeof named === 'string' && named !== '' && named !== 'Object' ? named : 'this store';
    this.#key = key;
    this.#holder = holder;
    this.#signal = signal;
    this.#setup = setup;
  }

  /**
   * Looks the step up and starts it when it has no entry: one store call. The two-phase
   * form of {@link step}, for a step whose outcome is known only later (a streamed model
   * answer).
   */
  readonly begin = async (name: string, options?: BeginStepOptions): Promise<BegunStep> => {
    checkStepName(name);
    const { repeat, kind } = normalizeStepOptions(options);
    const store = this.#journalStore();
    const occurrence = (this.#occurrences.get(name) ?? 0) + 1;
    this.#occurrences.set(name, occurrence);
    const step = { name, key: await stepKey(this.#key, name, occurrence) };
    const started = await this.#start(store, step, repeat === 'safe');
    if (started.state === 'finished') return this.#recorded(step, kind, started.outcome);
    if (started.state === 'started') return this.#open(store, step, repeat, kind);
    this.#report(step, kind, 'uncertain');
    return {
      state: 'uncertain',
      ...step,
      error: new StepUncertainError(name, step.key),
      restart: async () => {
        const again = await this.#start(store, step, true);
        return again.state === 'finished'
          ? this.#recorded(step, kind, again.outcome)
          : this.#open(store, step, repeat, kind);
      },
      record: async (value) => {
        const recorded = await this.#finish(store, step, { ok: true, value }, kind);
        this.#report(step, kind, 'reconciled');
        return recorded;
      },
    };
  };

  /**
   * Runs `fn` as the step `name` once across every run of the intent: a recorded outcome
   * is returned (or its error rethrown) without calling `fn`; a step a former run started
   * and never finished is decided by `reconcile`, then `repeat`.
   */
  readonly step = async <T>(
    name: string,
    fn: (step: StepContext) => T | Promise<T>,
    options?: StepOptions<T>,
  ): Promise<T> => {
    if (typeof fn !== 'function') throw new TypeError('answer-once: `ctx.step(name, fn)` needs `fn` to be a function.');
    const { reconcile } = normalizeStepOptions(options);
    let begun = await this.begin(name, options);
    if (begun.state === 'uncertain') {
      if (!reconcile) throw begun.error;
      const found = await reconcile({ name: begun.name, key: begun.key });
      if (found.done) return settled<T>(await begun.record(found.value));
      begun = await begun.restart();
    }
    if (begun.state === 'recorded') return settled<T>(begun.outcome);
    const usage = new UsageReport();
    let outcome: StepOutcome;
    try {
      const value = await fn({ name, key: begun.key, signal: this.#signal, reportUsage: usage.report });
      outcome = { ok: true, value, ...withUsage(usage.value) };
    } catch (error) {
      const failed = error instanceof Error ? error : new Error(String(error));
      // Whether or not it could be recorded (a store failure is reported as its event),
      // this run rethrows what `fn` threw, class and all.
      await begun.finish({ ok: false, error: failed, ...withUsage(usage.value) }).catch(() => undefined);
      throw error;
    }
    return settled<T>(await begun.finish(outcome));
  };

  #journalStore(): StepStore {
    if (this.#store) return this.#store;
    throw new TypeError(
      `answer-once: ctx.step() needs a store that keeps a step journal (startStep, finishStep); ${this.#storeName} does not, and a step is never run unjournaled.`,
    );
  }

  async #start(store: StepStore, step: StepInfo, restart: boolean): Promise<StepStart> {
    const key = this.#key;
    const token = this.#holder.token;
    const started = await storeCall(
      'startStep',
      key,
      () => store.startStep(key, token, step.key, { restart }),
      this.#context(),
    );
    if (started.state === 'fenced' || started.state === 'gone') throw lostLease(step.name, 'started');
    return started;
  }

  #recorded(step: StepInfo, kind: string | undefined, stored: string): RecordedStep {
    const outcome = decodeStepOutcome(stored);
    this.#report(step, kind, 'replayed', outcome.usage);
    return { state: 'recorded', ...step, outcome };
  }

  #open(store: StepStore, step: StepInfo, repeat: StepRepeat, kind: string | undefined): OpenStep {
    let finished = false;
    return {
      state: 'open',
      ...step,
      finish: async (outcome) => {
        if (finished) throw new TypeError(`answer-once: the step "${step.name}" was already finished.`);
        finished = true;
        this.#report(step, kind, 'ran', outcome.usage);
        // A cut step stays without outcome; a repeatable step's error is tried again by a later run.
        if (this.#signal.aborted || (!outcome.ok && repeat === 'safe')) return outcome;
        return this.#finish(store, step, outcome, kind);
      },
    };
  }

  async #finish(store: StepStore, step: StepInfo, outcome: StepOutcome, kind: string | undefined): Promise<StepOutcome> {
    let encoded: string;
    try {
      encoded = encodeStepOutcome(outcome, kind);
    } catch (error) {
      throw new TypeError(`answer-once: the value of step "${step.name}" is not JSON; it was not recorded.`, {
        cause: error,
      });
    }
    const { maxStepBytes } = this.#setup;
    const bytes = exceedsBytes(encoded, maxStepBytes);
    if (bytes !== undefined) {
      throw new StepOutcomeTooLargeError(step.name, bytes, maxStepBytes, outcome.ok ? undefined : { cause: outcome.error });
    }
    const key = this.#key;
    const token = this.#holder.token;
    const written: WriteResult = await storeCall(
      'finishStep',
      key,
      () => store.finishStep(key, token, step.key, encoded),
      this.#context(),
    );
    if (written !== 'written') throw lostLease(step.name, 'recorded');
    return outcome.ok ? decodeStepOutcome(encoded) : outcome;
  }

  #context(): { readonly report: Reporter; readonly timeoutMs: number } {
    return { report: this.#setup.report, timeoutMs: this.#setup.storeTimeoutMs };
  }

  #report(
    step: StepInfo,
    kind: string | undefined,
    outcome: 'ran' | 'replayed' | 'reconciled' | 'uncertain',
    usage?: Usage,
  ): void {
    this.#setup.usage.step({ outcome, kind, usage });
    this.#setup.report({
      type: 'step',
      key: this.#key,
      step: step.name,
      outcome,
      ...(kind === undefined ? {} : { kind }),
      ...(usage === undefined ? {} : { usage }),
    });
  }
}

function lostLease(name: string, what: 'started' | 'recorded'): LeaseLostError {
  return new LeaseLostError(`answer-once: this run no longer holds its intent; the step "${name}" was not ${what}.`);
}

function withUsage(usage: Usage | undefined): { usage?: Usage } {
  return usage === undefined ? {} : { usage };
}

/** The step's answer: its value, or its error thrown. */
function settled<T>(outcome: StepOutcome): T {
  if (!outcome.ok) throw outcome.error;
  return outcome.value as T;
}
