/**
 * Runs the cases one after another against one server, each under its own deadline
 * (`timeoutMs`: every request and wait of the case), so a run takes at most
 * `cases × timeoutMs` whatever the server does.
 */
import type { CheckCase } from './case.js';
import { CASES } from './cases/index.js';
import { type CheckOptions, normalizeCheckOptions } from './options.js';
import { CaseFailed, CaseSkipped } from './outcome.js';
import { Wire } from './wire.js';

type Outcome = 'pass' | 'fail' | 'skip';

/** One case's result. */
interface CaseResult {
  readonly id: string;
  readonly section: string;
  readonly title: string;
  readonly outcome: Outcome;
  /** What was seen (pass), what went wrong (fail), why it did not apply (skip). */
  readonly detail: string;
  readonly durationMs: number;
}

/** A run's results. */
export interface CheckReport {
  readonly url: string;
  readonly results: readonly CaseResult[];
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly durationMs: number;
}

/** Checks the server at `options.url`; `cases` defaults to every case. */
export async function runCheck(options: CheckOptions, cases: readonly CheckCase[] = CASES): Promise<CheckReport> {
  const resolved = normalizeCheckOptions(options);
  const started = performance.now();
  const results: CaseResult[] = [];
  for (const checkCase of cases)
    results.push(await runCase(checkCase, new Wire(resolved, AbortSignal.timeout(resolved.timeoutMs))));
  const count = (outcome: Outcome) => results.filter((result) => result.outcome === outcome).length;
  return {
    url: resolved.url.href,
    results,
    passed: count('pass'),
    failed: count('fail'),
    skipped: count('skip'),
    durationMs: Math.round(performance.now() - started),
  };
}

async function runCase(checkCase: CheckCase, wire: Wire): Promise<CaseResult> {
  const { id, section, title } = checkCase;
  const started = performance.now();
  const result = (outcome: Outcome, detail: string): CaseResult => ({
    id,
    section,
    title,
    outcome,
    detail,
    durationMs: Math.round(performance.now() - started),
  });
  try {
    return result('pass', await checkCase.run(wire));
  } catch (error) {
    if (error instanceof CaseSkipped) return result('skip', error.message);
    if (error instanceof CaseFailed) return result('fail', error.message);
    if (wire.signal.aborted)
      return result('fail', `did not finish within ${wire.options.timeoutMs} ms (last request: ${wire.last})`);
    return result('fail', `the check failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    wire.close();
  }
}
