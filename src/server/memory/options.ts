import { functionOption, numberOption, optionsObject } from '../../core/options.js';
import type { IdempotencyEventListener } from '../events.js';

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * The most records kept. When full, room is made fairly: the scope (user, session)
   * holding the most records gives up its own least recently written record that is
   * expired or answered — so one user's flood evicts its own answers first, never a
   * smaller scope's. A live PROCESSING record is never evicted; when no eligible scope
   * has an evictable record, `acquire` of a new key throws a `StoreUnavailableError`
   * (the handler's 503). Size it for every answer that must still be replayable within
   * your retry window.
   * @default 10_000
   */
  maxEntries?: number;
  /**
   * How long a PROCESSING record whose lease expired (its worker died and nobody took
   * it over) is kept, so a late retry still takes over with the same fingerprint.
   * @default 3_600_000 (1 hour)
   */
  abandonedTtlMs?: number;
  /**
   * The clock, in epoch milliseconds. Waits arm real timers (`setTimeout`) for the
   * lease deadline, so a test that injects a clock should also fake timers.
   * @default Date.now
   */
  now?: () => number;
  /** Told of every record evicted to make room (`evicted`), for metrics. @default undefined */
  onEvent?: IdempotencyEventListener;
}

/** The defaults of {@link MemoryStoreOptions}. */
const MEMORY_STORE_DEFAULTS = Object.freeze({
  maxEntries: 10_000,
  abandonedTtlMs: 3_600_000,
  // Read at each call, so fake timers installed after the store was made still apply.
  now: (): number => Date.now(),
});

export interface ResolvedMemoryStoreOptions {
  readonly maxEntries: number;
  readonly abandonedTtlMs: number;
  readonly now: () => number;
  readonly onEvent: IdempotencyEventListener | undefined;
}

export function normalizeMemoryStoreOptions(given: MemoryStoreOptions | undefined): ResolvedMemoryStoreOptions {
  const options = optionsObject(given, 'MemoryStore options');
  return {
    maxEntries: numberOption(options.maxEntries ?? MEMORY_STORE_DEFAULTS.maxEntries, 'maxEntries', { min: 1 }),
    abandonedTtlMs: numberOption(options.abandonedTtlMs ?? MEMORY_STORE_DEFAULTS.abandonedTtlMs, 'abandonedTtlMs'),
    now: functionOption(options.now ?? MEMORY_STORE_DEFAULTS.now, 'now', false),
    onEvent: functionOption(options.onEvent, 'onEvent'),
  };
}
