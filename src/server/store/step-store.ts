/**
 * The step journal: what a store adds to {@link IdempotencyStore} so that a run's steps
 * (a model call, a tool call, a payment) run once across every run of the intent
 * (PROTOCOL.md § 15). `MemoryStore` is the reference implementation; `RedisStore` and
 * `PostgresStore` the shared ones. `isStepStore` tells
 * a store that keeps it from one that does not (`ctx.step` refuses the latter by name
 * rather than run unjournaled).
 *
 * The model. Beside its record, every intent has a **journal**: a map from a step's ID
 * (derived by the layer above from the intent's key, the step's name and its occurrence
 * in the run, `[A-Za-z0-9_-]`) to either
 *
 *   started            the step began and has no outcome yet, or
 *   finished(outcome)  the step's outcome: an opaque string (value or error, usage)
 *
 * - Fencing: both operations act only while `token` holds the intent (the record is
 *   PROCESSING under that very token; an expired lease nobody took over still holds, as
 *   for every fenced write). Otherwise they change nothing and answer `fenced` (a record
 *   under another token, or settled) or `gone` (no record).
 * - Facts stay facts: an outcome, once recorded, is never replaced — not by a later
 *   `finishStep`, not by a restart. A successor's token (a takeover, a run again after
 *   FAILED) reads every outcome a former run recorded, and finds the steps a former run
 *   started and never finished `unfinished`.
 * - Lifetime: the journal lives and expires with its record. A claim of the same record
 *   (a run again after FAILED, a takeover) keeps it; a record created anew for the key
 *   (the old one expired, was evicted, or the store lost it) starts with an empty one.
 * - Every method is ONE atomic step on the store (one round trip for a networked store:
 *   one Lua script, one SQL statement), like the record operations. The store never
 *   interprets an outcome and bounds nothing: the layer above bounds an outcome's size
 *   (`maxStepBytes`) before it is written.
 */
import type { IdempotencyStore, WriteResult } from './store.js';

/**
 * What `startStep` found.
 * - `started`: the step had no entry (or, with `restart`, had one without outcome); it is
 *   now `started` under this run: run it, then `finishStep`.
 * - `finished`: a run recorded the step's `outcome` before; nothing changed.
 * - `unfinished`: a run started the step and recorded no outcome (it died inside it, or
 *   its outcome could not be written): nothing changed. Whether it happened is unknown.
 * - `fenced` / `gone`: `token` does not hold the intent (see {@link WriteResult}).
 */
export type StepStart =
  | { readonly state: 'started' }
  | { readonly state: 'finished'; readonly outcome: string }
  | { readonly state: 'unfinished' }
  | { readonly state: 'fenced' }
  | { readonly state: 'gone' };

/** Options of {@link StepStore.startStep}. */
export interface StepStartOptions {
  /**
   * Start a step found `unfinished` again (answer `started`): the layer above decided it
   * is safe to run again (it forwards its key to an API that dedupes, or a reconcile
   * lookup found it not done). A `finished` step is never started again.
   * @default false
   */
  readonly restart?: boolean;
}

/** An {@link IdempotencyStore} that also keeps a step journal per intent. */
export interface StepStore extends IdempotencyStore {
  /**
   * If `token` holds `key`: the step's recorded outcome when it has one; else, when the
   * step has no entry (or `options.restart` and it has one without outcome), records it
   * `started` and answers `started`; else `unfinished`.
   */
  startStep(key: string, token: string, step: string, options?: StepStartOptions): Promise<StepStart>;

  /**
   * If `token` holds `key`: records `outcome` as the step's outcome — unless it already
   * has one, which is kept (so a `finishStep` tried again after a timeout is harmless) —
   * and answers `written`. A step with no entry gets one. Otherwise `fenced` / `gone`,
   * and nothing changes: a run that lost its lease cannot write a step.
   */
  finishStep(key: string, token: string, step: string, outcome: string): Promise<WriteResult>;
}

/** Whether `store` keeps a step journal (has every {@link StepStore} method). */
export function isStepStore(store: IdempotencyStore): store is StepStore {
  const candidate = store as Partial<StepStore>;
  return typeof candidate.startStep === 'function' && typeof candidate.finishStep === 'function';
}
