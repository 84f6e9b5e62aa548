import { functionOption, invalidOption, numberOption, optionsObject, stringOption } from '../../core/options.js';
import type { Usage } from '../usage.js';

/** The journal's option shared by `runOnce` and `createIdempotencyHandler`. */
export interface JournalOptions {
  /**
   * The largest outcome a step (`ctx.step`) may record, in bytes of its stored JSON
   * (value or error, usage, kind). A larger one is not recorded: the step's caller gets a
   * `StepOutcomeTooLargeError`, and a later run of the intent finds the step started
   * without outcome (uncertain, or run again when it is safe to repeat).
   * @default 1_048_576 (1 MiB)
   */
  maxStepBytes?: number;
}

const JOURNAL_DEFAULTS = Object.freeze({ maxStepBytes: 1_048_576 });

export interface ResolvedJournalOptions {
  readonly maxStepBytes: number;
}

export function normalizeJournalOptions(options: JournalOptions): ResolvedJournalOptions {
  return {
    maxStepBytes: numberOption(options.maxStepBytes ?? JOURNAL_DEFAULTS.maxStepBytes, 'maxStepBytes', { min: 1 }),
  };
}

/** What identifies a step: its name and the key derived for it. */
export interface StepInfo {
  /** The name given to `ctx.step`. */
  readonly name: string;
  /**
   * The step's key: derived from the intent and the step (its name and occurrence in the
   * run), the same in every run of the intent, 43 characters of `[A-Za-z0-9_-]`. Send it
   * as the `Idempotency-Key` of the step's outbound request (Stripe, Square, any API that
   * takes one) so that API dedupes a repeat.
   */
  readonly key: string;
}

/** What a step's `fn` receives. */
export interface StepContext extends StepInfo {
  /** The run's signal: aborted when the run loses its lease, is stopped or runs too long. */
  readonly signal: AbortSignal;
  /**
   * Keeps what this step cost (a model step's tokens) with its outcome; a replay of the
   * step reports it as avoided. The last report wins; not reporting means unknown, never 0.
   * Throws a `TypeError` naming a bad counter.
   */
  readonly reportUsage: (usage: Usage) => void;
}

/** What a `reconcile` lookup found: the step's outcome, or that it was not done. */
export type StepReconciliation<T> = { readonly done: true; readonly value: T } | { readonly done: false };

/**
 * Whether a step found started without outcome may run again:
 * - `'never'`: it is not run again: the run gets `StepUncertainError` (or `reconcile`
 *   decides). For a step with an effect nobody dedupes (an email, a charge without key).
 * - `'safe'`: it runs again with the same key. For a step that forwards its key to an API
 *   that dedupes (`Idempotency-Key`), and for one without effects (a model call, a read).
 *   Its errors are not recorded either: a later run tries it again.
 */
export type StepRepeat = 'never' | 'safe';

/** Options of one step (`ctx.step`, `ctx.beginStep`). */
export interface StepOptions<T = unknown> {
  /** Whether the step may run again when its outcome is unknown (see {@link StepRepeat}). @default 'never' */
  repeat?: StepRepeat;
  /**
   * What the step is, for the `step` events and their metrics: `'model'`, `'tool'`, or
   * any other short label. Never an ID: it becomes a metric attribute.
   * @default undefined
   */
  kind?: string;
  /**
   * Decides a step found started without outcome (before `repeat` does): look up whether
   * it happened (the charge by its key, the sent email). `{ done: true, value }` records
   * `value` as its outcome and returns it; `{ done: false }` runs the step again, with the
   * same key. A lookup that throws leaves the step uncertain and rethrows.
   * @default undefined
   */
  reconcile?: (step: StepInfo) => StepReconciliation<T> | Promise<StepReconciliation<T>>;
}

export interface ResolvedStepOptions<T> {
  readonly repeat: StepRepeat;
  readonly kind: string | undefined;
  readonly reconcile: StepOptions<T>['reconcile'];
}

const KIND = /^[A-Za-z0-9_.-]{1,64}$/;

export function normalizeStepOptions<T>(given: StepOptions<T> | undefined): ResolvedStepOptions<T> {
  const options = optionsObject(given, 'step options');
  const repeat = options.repeat ?? 'never';
  if (repeat !== 'never' && repeat !== 'safe') invalidOption('repeat', "'never' or 'safe'", repeat);
  const kind =
    options.kind === undefined
      ? undefined
      : stringOption(options.kind, 'kind', 'a label of 1–64 characters [A-Za-z0-9_.-]', (label) => KIND.test(label));
  return { repeat, kind, reconcile: functionOption(options.reconcile, 'reconcile') };
}
