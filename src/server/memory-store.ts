import { functionOption, MAX_TIMER_MS, numberOption, optionsObject } from '../core/options.js';
import { StoreUnavailableError } from './errors.js';
import { type IdempotencyEventListener, reporter } from './events.js';
import { splitKey } from './key.js';
import { MemoryLogs } from './memory-log.js';
import type { AcquireResult, IdempotencyRecord, ProcessingRecord, WriteResult } from './store.js';
import type {
  LogAppend,
  LogAppendResult,
  LogPosition,
  LogReadOptions,
  LogSnapshot,
  StopResult,
  StreamStore,
} from './stream-store.js';

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

interface ResolvedMemoryStoreOptions {
  readonly maxEntries: number;
  readonly abandonedTtlMs: number;
  readonly now: () => number;
  readonly onEvent: IdempotencyEventListener | undefined;
}

function normalizeMemoryStoreOptions(given: MemoryStoreOptions | undefined): ResolvedMemoryStoreOptions {
  const options = optionsObject(given, 'MemoryStore options');
  return {
    maxEntries: numberOption(options.maxEntries ?? MEMORY_STORE_DEFAULTS.maxEntries, 'maxEntries', { min: 1 }),
    abandonedTtlMs: numberOption(options.abandonedTtlMs ?? MEMORY_STORE_DEFAULTS.abandonedTtlMs, 'abandonedTtlMs'),
    now: functionOption(options.now ?? MEMORY_STORE_DEFAULTS.now, 'now', false),
    onEvent: functionOption(options.onEvent, 'onEvent'),
  };
}

interface Entry {
  readonly record: IdempotencyRecord;
  /** When the record disappears (for PROCESSING: lease end + abandonedTtlMs). */
  readonly expiresAt: number;
}

/** Called on every write to a key; returns nothing, re-checks the record itself. */
type Wake = () => void;

/**
 * The reference {@link IdempotencyStore}: one process, a `Map` in write order, TTLs
 * checked lazily (no background timer), a size bound shared out per scope that never
 * evicts a running intent, and `wait` woken by the writes themselves and by one timer at
 * the lease deadline — never a poll. It keeps answer logs too ({@link StreamStore}), so
 * answers stream through it.
 */
export class MemoryStore implements StreamStore {
  readonly #options: ResolvedMemoryStoreOptions;
  readonly #entries = new Map<string, Entry>();
  /** The keys of each scope, in write order. */
  readonly #scopes = new Map<string, Set<string>>();
  readonly #logs = new MemoryLogs();
  readonly #waiters = new Map<string, Set<Wake>>();
  #closed = false;

  constructor(options?: MemoryStoreOptions) {
    this.#options = normalizeMemoryStoreOptions(options);
  }

  /** The number of records currently held (expired ones may still count until touched). */
  get size(): number {
    return this.#entries.size;
  }

  async acquire(key: string, fingerprint: string, leaseMs: number): Promise<AcquireResult> {
    const now = this.#options.now();
    const current = this.#read(key, now);
    if (current && current.fingerprint !== fingerprint) return { acquired: false, record: current };
    if (current?.state === 'completed') return { acquired: false, record: current };
    if (current?.state === 'processing' && current.leaseExpiresAt > now) {
      return { acquired: false, record: current };
    }
    if (!current) this.#makeRoom(key, now);
    const record: ProcessingRecord = {
      state: 'processing',
      fingerprint,
      token: crypto.randomUUID(),
      leaseExpiresAt: now + leaseMs,
      createdAt: current?.createdAt ?? now,
      // Larger than every generation before, even across a record that expired.
      generation: Math.max(now, (current?.generation ?? 0) + 1),
    };
    this.#write(key, record, record.leaseExpiresAt + this.#options.abandonedTtlMs);
    return {
      acquired: true,
      token: record.token,
      leaseExpiresAt: record.leaseExpiresAt,
      takeover: current?.state === 'processing',
      retry: current?.state === 'failed',
      generation: record.generation,
    };
  }

  async renew(key: string, token: string, leaseMs: number): Promise<WriteResult> {
    const now = this.#options.now();
    const current = this.#held(key, token, now);
    if (typeof current === 'string') return current;
    const record: ProcessingRecord = { ...current, leaseExpiresAt: now + leaseMs };
    this.#write(key, record, record.leaseExpiresAt + this.#options.abandonedTtlMs);
    return 'written';
  }

  async complete(key: string, token: string, result: string, ttlMs: number): Promise<WriteResult> {
    const now = this.#options.now();
    const current = this.#held(key, token, now);
    if (typeof current === 'string') return current;
    const { fingerprint, createdAt, generation } = current;
    this.#logs.settle(key, now, now + ttlMs);
    this.#write(key, { state: 'completed', fingerprint, result, createdAt, completedAt: now, generation }, now + ttlMs);
    return 'written';
  }

  async fail(key: string, token: string, error: string, ttlMs: number): Promise<WriteResult> {
    const now = this.#options.now();
    const current = this.#held(key, token, now);
    if (typeof current === 'string') return current;
    const { fingerprint, createdAt, generation } = current;
    this.#logs.settle(key, now, now + ttlMs);
    this.#write(key, { state: 'failed', fingerprint, error, createdAt, failedAt: now, generation }, now + ttlMs);
    return 'written';
  }

  async get(key: string): Promise<IdempotencyRecord | null> {
    return this.#read(key, this.#options.now()) ?? null;
  }

  wait(key: string, timeoutMs: number, signal?: AbortSignal): Promise<IdempotencyRecord | null> {
    if (!(timeoutMs >= 0)) {
      return Promise.reject(
        new TypeError(`answer-once: MemoryStore.wait() needs a timeoutMs ≥ 0, got ${String(timeoutMs)}.`),
      );
    }
    const deadline = this.#options.now() + timeoutMs;
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        this.#unsubscribe(key, check);
        resolve(this.#read(key, this.#options.now()) ?? null);
      };
      // Settles unless the record is still a live PROCESSING one and time remains;
      // otherwise sleeps until the earlier of the lease deadline and the wait deadline.
      const check = (): void => {
        const now = this.#options.now();
        const record = this.#read(key, now);
        if (this.#closed || record?.state !== 'processing' || record.leaseExpiresAt <= now || now >= deadline) {
          finish();
          return;
        }
        clearTimeout(timer);
        // Timers hold at most 2³¹−1 ms; a longer sleep wakes early and sleeps again.
        timer = setTimeout(check, Math.min(MAX_TIMER_MS, Math.max(1, Math.min(deadline, record.leaseExpiresAt) - now)));
      };
      if (signal?.aborted) {
        resolve(this.#read(key, this.#options.now()) ?? null);
        return;
      }
      signal?.addEventListener('abort', finish, { once: true });
      this.#subscribe(key, check);
      check();
    });
  }

  async append(key: string, token: string, batch: LogAppend): Promise<LogAppendResult> {
    const now = this.#options.now();
    const current = this.#read(key, now);
    if (!current) return { ok: false, reason: 'gone' };
    if (current.state !== 'processing' || current.token !== token) return { ok: false, reason: 'fenced' };
    const appended = this.#logs.append(key, current.generation ?? 0, batch);
    if (!appended) return { ok: false, reason: 'offset' };
    if (batch.leaseMs !== undefined) {
      const record: ProcessingRecord = { ...current, leaseExpiresAt: now + batch.leaseMs };
      this.#write(key, record, record.leaseExpiresAt + this.#options.abandonedTtlMs);
    } else {
      this.#wake(key);
    }
    return { ok: true, length: appended.length, stopRequested: current.stopRequested === true };
  }

  read(key: string, from: LogPosition | null, options: LogReadOptions = {}): Promise<LogSnapshot> {
    const { waitMs = 0, signal } = options;
    if (!(waitMs >= 0)) {
      return Promise.reject(new TypeError(`answer-once: MemoryStore.read() needs a waitMs ≥ 0, got ${String(waitMs)}.`));
    }
    const deadline = this.#options.now() + waitMs;
    return this.#sleepUntil<LogSnapshot>(
      key,
      signal,
      () => {
        const now = this.#options.now();
        const snapshot = this.#snapshot(key, from, now);
        const { record, log } = snapshot;
        const fresh =
          record?.state !== 'processing' ||
          record.leaseExpiresAt <= now ||
          (from !== null && record.generation !== from.generation) ||
          (log !== null && log.generation === record.generation && (from === null || log.length > from.offset));
        if (fresh || now >= deadline) return { settled: snapshot };
        return { sleepUntil: Math.min(deadline, record.leaseExpiresAt) };
      },
      () => this.#snapshot(key, from, this.#options.now()),
    );
  }

  async stop(key: string): Promise<StopResult> {
    const now = this.#options.now();
    const current = this.#read(key, now);
    if (!current) return 'unknown';
    if (current.state !== 'processing') return 'settled';
    const entry = this.#entries.get(key);
    if (!current.stopRequested && entry) {
      this.#entries.set(key, { record: { ...current, stopRequested: true }, expiresAt: entry.expiresAt });
    }
    this.#wake(key);
    return 'stopping';
  }

  watchStop(key: string, token: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (!(timeoutMs >= 0)) {
      return Promise.reject(
        new TypeError(`answer-once: MemoryStore.watchStop() needs a timeoutMs ≥ 0, got ${String(timeoutMs)}.`),
      );
    }
    const deadline = this.#options.now() + timeoutMs;
    const held = (): ProcessingRecord | undefined => {
      const record = this.#read(key, this.#options.now());
      return record?.state === 'processing' && record.token === token ? record : undefined;
    };
    return this.#sleepUntil<boolean>(
      key,
      signal,
      () => {
        const record = held();
        if (!record) return { settled: false };
        if (record.stopRequested === true) return { settled: true };
        return this.#options.now() >= deadline ? { settled: false } : { sleepUntil: deadline };
      },
      () => held()?.stopRequested === true,
    );
  }

  /** Settles every pending `wait` with the record as it is; later waits return at once. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wakes of [...this.#waiters.values()]) for (const wake of [...wakes]) wake();
  }

  /**
   * The PROCESSING record `token` holds, if it still does; else why not: `gone` (no
   * record) or `fenced` (another token's, or settled). An expired lease that nobody took
   * over is still held: the slow worker may renew or store its answer; the first
   * takeover issues a new token and fences it out.
   */
  #held(key: string, token: string, now: number): ProcessingRecord | 'gone' | 'fenced' {
    const current = this.#read(key, now);
    if (!current) return 'gone';
    return current.state === 'processing' && current.token === token ? current : 'fenced';
  }

  #read(key: string, now: number): IdempotencyRecord | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry.record;
    this.#delete(key);
    this.#logs.drop(key);
    return undefined;
  }

  #snapshot(key: string, from: LogPosition | null, now: number): LogSnapshot {
    const record = this.#read(key, now) ?? null;
    return { record, log: record ? this.#logs.slice(key, from, now) : null };
  }

  /**
   * Resolves with `check()`'s value once it settles; until then sleeps — woken by every
   * write to `key`, and by a timer at the time `check` names — or ends with `onEnd()`
   * when `signal` aborts or the store closes.
   */
  #sleepUntil<T>(
    key: string,
    signal: AbortSignal | undefined,
    check: () => { readonly settled: T } | { readonly sleepUntil: number },
    onEnd: () => T,
  ): Promise<T> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (value: T): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', abort);
        this.#unsubscribe(key, wake);
        resolve(value);
      };
      const abort = (): void => finish(onEnd());
      const wake = (): void => {
        if (this.#closed) {
          abort();
          return;
        }
        const verdict = check();
        if ('settled' in verdict) {
          finish(verdict.settled);
          return;
        }
        clearTimeout(timer);
        const delay = verdict.sleepUntil - this.#options.now();
        timer = setTimeout(wake, Math.min(MAX_TIMER_MS, Math.max(1, delay)));
      };
      if (signal?.aborted) return resolve(onEnd());
      signal?.addEventListener('abort', abort, { once: true });
      this.#subscribe(key, wake);
      wake();
    });
  }

  #wake(key: string): void {
    for (const wake of [...(this.#waiters.get(key) ?? [])]) wake();
  }

  #write(key: string, record: IdempotencyRecord, expiresAt: number): void {
    // Re-inserted at the back: the Maps' order is write order.
    this.#delete(key);
    this.#entries.set(key, { record, expiresAt });
    const { scope } = splitKey(key);
    let keys = this.#scopes.get(scope);
    if (!keys) this.#scopes.set(scope, (keys = new Set()));
    keys.add(key);
    for (const wake of [...(this.#waiters.get(key) ?? [])]) wake();
  }

  #delete(key: string): void {
    if (!this.#entries.delete(key)) return;
    const { scope } = splitKey(key);
    const keys = this.#scopes.get(scope);
    keys?.delete(key);
    if (keys?.size === 0) this.#scopes.delete(scope);
  }

  /**
   * Frees one slot for a new key, fairly: only a scope that would still hold at least as
   * many records as the newcomer's (the newcomer's own scope included) gives one up —
   * the largest first, its least recently written record that is expired or answered.
   * A waiter never waits on such a record (it only waits on live PROCESSING ones), so an
   * eviction wakes nobody.
   */
  #makeRoom(key: string, now: number): void {
    if (this.#entries.size < this.#options.maxEntries) return;
    const own = splitKey(key).scope;
    const ownSize = this.#scopes.get(own)?.size ?? 0;
    // Usually the largest scope has something to give: one pass finds it; only if not, sort.
    let largest: Set<string> | undefined;
    for (const [scope, keys] of this.#scopes) {
      if ((scope === own || keys.size > ownSize) && keys.size > (largest?.size ?? 0)) largest = keys;
    }
    if (largest && this.#evictOne(largest, now)) return;
    const eligible = [...this.#scopes].filter(([scope, keys]) => keys !== largest && (scope === own || keys.size > ownSize));
    eligible.sort(([, a], [, b]) => b.size - a.size);
    for (const [, keys] of eligible) if (this.#evictOne(keys, now)) return;
    throw new StoreUnavailableError(
      `answer-once: the memory store is full (${this.#options.maxEntries} records) and this scope has nothing left to evict.`,
    );
  }

  /** Evicts the least recently written record of `keys` that is expired or answered; false when all run. */
  #evictOne(keys: ReadonlySet<string>, now: number): boolean {
    for (const candidate of keys) {
      const { record, expiresAt } = this.#entries.get(candidate) as Entry;
      if (expiresAt > now && record.state === 'processing' && record.leaseExpiresAt > now) continue;
      this.#delete(candidate);
      this.#logs.drop(candidate);
      this.#wake(candidate); // a reader of its answer log ends (a `wait` never waits on an evictable record)
      if (expiresAt > now) {
        const { requestId } = splitKey(candidate);
        reporter(this.#options.onEvent, { requestId })({ type: 'evicted', key: candidate, state: record.state });
      }
      return true;
    }
    return false;
  }

  #subscribe(key: string, wake: Wake): void {
    let wakes = this.#waiters.get(key);
    if (!wakes) this.#waiters.set(key, (wakes = new Set()));
    wakes.add(wake);
  }

  #unsubscribe(key: string, wake: Wake): void {
    const wakes = this.#waiters.get(key);
    wakes?.delete(wake);
    if (wakes?.size === 0) this.#waiters.delete(key);
  }
}
