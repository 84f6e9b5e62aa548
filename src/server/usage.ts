import { invalidOption } from '../core/options.js';

/**
 * What a run of the work cost, as the model reported it: token counters, kept with the
 * answer and handed on with every answer given without a run (the tokens it avoided).
 * `inputTokens` and `outputTokens` are the ones answer-once reads; any other counter
 * (`reasoningTokens`, `cachedInputTokens`…) is kept and handed on as it came.
 */
export interface Usage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly [counter: string]: number | undefined;
}

/** A usage report is a handful of counters, not a document. */
const MAX_COUNTERS = 32;
const COUNTER_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * The counters of `value` as a frozen {@link Usage}: each a non-negative integer, or
 * `undefined` (left out: providers report some counters as unknown). Anything else
 * throws a `TypeError` naming the counter, so a report is stored whole or not at all.
 */
function normalizeUsage(value: unknown): Usage {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    invalidOption('usage', 'an object of token counters', value);
  }
  const usage: Record<string, number> = {};
  const entries = Object.entries(value);
  if (entries.length > MAX_COUNTERS) invalidOption('usage', `at most ${MAX_COUNTERS} counters`, value);
  for (const [name, count] of entries) {
    if (count === undefined) continue;
    if (!COUNTER_NAME.test(name)) invalidOption('usage', 'counters named like `inputTokens`', name);
    if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
      invalidOption(`usage.${name}`, 'a non-negative integer', count);
    }
    usage[name] = count;
  }
  return Object.freeze(usage);
}

/** The stored form of a usage, read back: counters that are not what {@link normalizeUsage} keeps are dropped. */
export function readUsage(stored: unknown): Usage | undefined {
  try {
    return stored === undefined ? undefined : normalizeUsage(stored);
  } catch {
    return undefined;
  }
}

/**
 * What a run took from its intent's step journal instead of running it again: the model
 * calls and tool calls replayed (or reconciled), and the usage those model calls recorded
 * (absent: unknown, never 0).
 */
export interface StepsAvoided {
  readonly modelCalls: number;
  readonly toolCalls: number;
  readonly usage?: Usage;
}

/** A journaled step's outcome, as the `step` event reports it. */
interface StepReport {
  readonly outcome: 'ran' | 'replayed' | 'reconciled' | 'uncertain';
  readonly kind?: string;
  readonly usage?: Usage;
}

/**
 * The usage one run reports: what the app gave its context's `reportUsage` (the last
 * report wins), or else the sum of its journaled steps' usage — the steps it ran and the
 * steps it took from the journal, which a former run of the intent paid for. A step that
 * reported none adds nothing; with no usage reported at all the run's usage is unknown
 * (`undefined`), never 0. Beside it, what the journal spared the run ({@link StepsAvoided}).
 */
export class UsageReport {
  #usage: Usage | undefined;
  #steps: Record<string, number> | undefined;
  #avoided: { modelCalls: number; toolCalls: number; usage?: Record<string, number> } | undefined;

  /** Validates and keeps `usage` (a `TypeError` naming the bad counter keeps the last good one). */
  readonly report = (usage: Usage): void => {
    this.#usage = normalizeUsage(usage);
  };

  /** Counts a journaled step of the run (its usage already normalized: recorded, or reported through the step). */
  step({ outcome, kind, usage }: StepReport): void {
    if (usage !== undefined) this.#steps = sum(this.#steps, usage);
    if (outcome !== 'replayed' && outcome !== 'reconciled') return;
    const avoided = (this.#avoided ??= { modelCalls: 0, toolCalls: 0 });
    if (kind === 'model') avoided.modelCalls += 1;
    if (kind === 'tool') avoided.toolCalls += 1;
    if (usage !== undefined) avoided.usage = sum(avoided.usage, usage);
  }

  get value(): Usage | undefined {
    return this.#usage ?? (this.#steps && Object.freeze({ ...this.#steps }));
  }

  /** What the journal spared the run; `undefined` when it took no step from it. */
  get avoided(): StepsAvoided | undefined {
    const avoided = this.#avoided;
    if (avoided === undefined) return undefined;
    const { modelCalls, toolCalls, usage } = avoided;
    return usage === undefined ? { modelCalls, toolCalls } : { modelCalls, toolCalls, usage: { ...usage } };
  }
}

function sum(counters: Record<string, number> | undefined, usage: Usage): Record<string, number> {
  const total = counters ?? {};
  for (const [name, count] of Object.entries(usage)) {
    if (count !== undefined) total[name] = (total[name] ?? 0) + count;
  }
  return total;
}
