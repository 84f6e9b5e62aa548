import type { StepStart } from '../store/step-store.js';

/** A step's entry: `null` while started without outcome, else its outcome. */
type StepEntry = string | null;

/**
 * The step journals of a {@link MemoryStore}, one per key. Like `MemoryLogs` it checks
 * nothing about tokens — the store fences first and calls it only for the holder — and is
 * dropped wherever the store drops the record, so a journal lives and expires with it.
 */
export class MemoryJournals {
  readonly #journals = new Map<string, Map<string, StepEntry>>();

  start(key: string, step: string, restart: boolean): StepStart {
    let journal = this.#journals.get(key);
    const entry = journal?.get(step);
    if (typeof entry === 'string') return { state: 'finished', outcome: entry };
    if (entry === null && !restart) return { state: 'unfinished' };
    if (!journal) this.#journals.set(key, (journal = new Map()));
    journal.set(step, null);
    return { state: 'started' };
  }

  /** Records `outcome` unless the step already has one (the first outcome is the fact). */
  finish(key: string, step: string, outcome: string): void {
    let journal = this.#journals.get(key);
    if (typeof journal?.get(step) === 'string') return;
    if (!journal) this.#journals.set(key, (journal = new Map()));
    journal.set(step, outcome);
  }

  drop(key: string): void {
    this.#journals.delete(key);
  }
}
