import { StoreUnavailableError } from '../errors.js';
import { reporter } from '../events.js';
import type * as Store from '../store/contract.js';
import { splitKey } from '../store/key.js';
import { answerGeneration, isNewToReader, stopOffset } from '../store/stream-store.js';
import { evictionOrder } from './evict.js';
import { MemoryJournals } from './journal.js';
import { MemoryLogs } from './log.js';
import { type MemoryStoreOptions, normalizeMemoryStoreOptions, type ResolvedMemoryStoreOptions } from './options.js';
import { KeyWaiters } from './waiters.js';

/** What a settle writes of its own: the state, the answer or error, and when. */
type SettledOutcome =
  | Pick<Extract<Store.IdempotencyRecord, { state: 'completed' }>, 'state' | 'result' | 'completedAt'>
  | Pick<Extract<Store.IdempotencyRecord, { state: 'failed' }>, 'state' | 'error' | 'failedAt'>;

interface Entry {
  readonly record: Store.IdempotencyRecord;
  /** When the record disappears (for PROCESSING: lease end + abandonedTtlMs). */
  readonly expiresAt: number;
  /** The scope its key names (`splitKey`), read once when the key is first written. */
  readonly scope: string;
}

/**
 * The reference {@link IdempotencyStore}: one process, a `Map` in write order, TTLs
 * checked lazily (no background timer), a size bound shared out per scope that never
 * evicts a running intent, and `wait` woken by the writes themselves and by one timer at
 * the lease deadline — never a poll. It keeps answer logs too ({@link StreamStore}), so
 * answers stream through it, and a step journal per intent ({@link StepStore}).
 */
export class MemoryStore implements Store.StreamStore, Store.StepStore {
  readonly #options: ResolvedMemoryStoreOptions;
  readonly #entries = new Map<string, Entry>();
  /** The keys of each scope, in write order. */
  readonly #scopes = new Map<string, Set<string>>();
  readonly #logs = new MemoryLogs();
  readonly #journals = new MemoryJournals();
  readonly #waiters: KeyWaiters;

  constructor(options?: MemoryStoreOptions) {
    this.#options = normalizeMemoryStoreOptions(options);
    this.#waiters = new KeyWaiters(this.#options.now);
  }

  /** The number of records currently held (expired ones may still count until touched). */
  get size(): number {
    return this.#entries.size;
  }

  async acquire(key: string, fingerprint: string, leaseMs: number): Promise<Store.AcquireResult> {
    const now = this.#options.now();
    const current = this.#read(key, now);
    if (current && current.fingerprint !== fingerprint) return { acquired: false, record: current };
    if (current?.state === 'completed') return { acquired: false, record: current };
    if (current?.state === 'processing' && current.leaseExpiresAt > now) {
      return { acquired: false, record: current };
    }
    if (!current) this.#makeRoom(key, now);
    const record: Store.ProcessingRecord = {
      state: 'processing',
      fingerprint,
      token: crypto.randomUUID(),
      leaseExpiresAt: now + leaseMs,
      createdAt: current?.createdAt ?? now,
      runs: (current?.runs ?? 0) + 1,
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
      runs: record.runs,
      generation: record.generation,
    };
  }

  async renew(key: string, token: string, leaseMs: number): Promise<Store.WriteResult> {
    const now = this.#options.now();
    const current = this.#held(key, token, now);
    if (typeof current === 'string') return current;
    this.#renew(key, current, now + leaseMs);
    return 'written';
  }

  async complete(key: string, token: string, result: string, ttlMs: number): Promise<Store.WriteResult> {
    return this.#settle(key, token, ttlMs, (now) => ({ state: 'completed', result, completedAt: now }));
  }

  async fail(key: string, token: string, error: string, ttlMs: number): Promise<Store.WriteResult> {
    return this.#settle(key, token, ttlMs, (now) => ({ state: 'failed', error, failedAt: now }));
  }

  async get(key: string): Promise<Store.IdempotencyRecord | null> {
    return this.#read(key, this.#options.now()) ?? null;
  }

  async markAvoided(key: string): Promise<Store.CompletedRecord | null> {
    const record = this.#read(key, this.#options.now());
    if (record?.state !== 'completed' || record.avoided) return null;
    // #read just returned its record, so the entry is there.
    const entry = this.#entries.get(key) as Entry;
    const marked = { ...record, avoided: true } as const;
    this.#entries.set(key, { ...entry, record: marked }); // a key set again keeps its place in write order
    return marked;
  }

  wait(key: string, timeoutMs: number, signal?: AbortSignal): Promise<Store.IdempotencyRecord | null> {
    if (!(timeoutMs >= 0)) {
      return Promise.reject(
        new TypeError(`answer-once: MemoryStore.wait() needs a timeoutMs ≥ 0, got ${String(timeoutMs)}.`),
      );
    }
    const deadline = this.#options.now() + timeoutMs;
    const current = (): Store.IdempotencyRecord | null => this.#read(key, this.#options.now()) ?? null;
    // Settles unless the record is still a live PROCESSING one and time remains;
    // otherwise sleeps until the earlier of the lease deadline and the wait deadline.
    return this.#waiters.sleepUntil<Store.IdempotencyRecord | null>(
      key,
      signal,
      () => {
        const now = this.#options.now();
        const record = this.#read(key, now);
        if (record?.state !== 'processing' || record.leaseExpiresAt <= now || now >= deadline) {
          return { settled: record ?? null };
        }
        return { sleepUntil: Math.min(deadline, record.leaseExpiresAt) };
      },
      current,
    );
  }

  async append(key: string, token: string, batch: Store.LogAppend): Promise<Store.LogAppendResult> {
    const now = this.#options.now();
    const current = this.#held(key, token, now);
    if (typeof current === 'string') return { ok: false, reason: current };
    const appended = this.#logs.append(key, current.generation ?? 0, current.continues, batch);
    if (!appended) return { ok: false, reason: 'offset' };
    // A first continuing append: the record keeps which generation's answer it continues.
    const continues = current.continues ?? batch.continues;
    const held = continues === current.continues ? current : { ...current, continues };
    this.#renew(key, held, batch.leaseMs === undefined ? current.leaseExpiresAt : now + batch.leaseMs);
    return { ok: true, length: appended.length, stopRequested: current.stopRequested === true };
  }

  read(key: string, from: Store.LogPosition | null, options: Store.LogReadOptions = {}): Promise<Store.LogSnapshot> {
    const { waitMs = 0, signal } = options;
    if (!(waitMs >= 0)) {
      return Promise.reject(new TypeError(`answer-once: MemoryStore.read() needs a waitMs ≥ 0, got ${String(waitMs)}.`));
    }
    const deadline = this.#options.now() + waitMs;
    return this.#waiters.sleepUntil<Store.LogSnapshot>(
      key,
      signal,
      () => {
        const now = this.#options.now();
        const snapshot = this.#snapshot(key, from, now);
        if (isNewToReader(snapshot, from, now) || now >= deadline) return { settled: snapshot };
        // Nothing new: a live PROCESSING record, whose lease expiring would be news.
        const { record } = snapshot;
        return { sleepUntil: Math.min(deadline, record?.state === 'processing' ? record.leaseExpiresAt : deadline) };
      },
      () => this.#snapshot(key, from, this.#options.now()),
    );
  }

  async stop(key: string, at?: Store.LogPosition): Promise<Store.StopOutcome> {
    const offset = stopOffset(at);
    const now = this.#options.now();
    const current = this.#read(key, now);
    if (!current) return 'unknown';
    if (current.state !== 'processing') return 'settled';
    // #read just returned its record, so the entry is there; asking twice changes nothing.
    const entry = this.#entries.get(key) as Entry;
    const keepsAt = offset !== undefined && current.stopAt === undefined && at?.generation === answerGeneration(current);
    const record = { ...current, stopRequested: true, ...(keepsAt && { stopAt: offset }) };
    this.#entries.set(key, { ...entry, record });
    this.#waiters.wake(key);
    return 'stopping';
  }

  watchStop(key: string, token: string, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (!(timeoutMs >= 0)) {
      return Promise.reject(
        new TypeError(`answer-once: MemoryStore.watchStop() needs a timeoutMs ≥ 0, got ${String(timeoutMs)}.`),
      );
    }
    const deadline = this.#options.now() + timeoutMs;
    const held = (): Store.ProcessingRecord | undefined => {
      const record = this.#read(key, this.#options.now());
      return record?.state === 'processing' && record.token === token ? record : undefined;
    };
    return this.#waiters.sleepUntil<boolean>(
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

  async startStep(key: string, token: string, step: string, options: Store.StepStartOptions = {}): Promise<Store.StepStart> {
    const current = this.#held(key, token, this.#options.now());
    if (typeof current === 'string') return { state: current };
    return this.#journals.start(key, step, options.restart === true);
  }

  async finishStep(key: string, token: string, step: string, outcome: string): Promise<Store.WriteResult> {
    const current = this.#held(key, token, this.#options.now());
    if (typeof current === 'string') return current;
    this.#journals.finish(key, step, outcome);
    return 'written';
  }

  /** Settles every pending `wait` with the record as it is; later waits return at once. */
  async close(): Promise<void> {
    this.#waiters.close();
  }

  /**
   * The PROCESSING record `token` holds, if it still does; else why not: `gone` (no
   * record) or `fenced` (another token's, or settled). An expired lease that nobody took
   * over is still held: the slow worker may renew or store its answer; the first
   * takeover issues a new token and fences it out.
   */
  #held(key: string, token: string, now: number): Store.ProcessingRecord | 'gone' | 'fenced' {
    const current = this.#read(key, now);
    if (!current) return 'gone';
    return current.state === 'processing' && current.token === token ? current : 'fenced';
  }

  #read(key: string, now: number): Store.IdempotencyRecord | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > now) return entry.record;
    this.#delete(key);
    this.#logs.drop(key);
    this.#journals.drop(key);
    return undefined;
  }

  #snapshot(key: string, from: Store.LogPosition | null, now: number): Store.LogSnapshot {
    const record = this.#read(key, now) ?? null;
    return { record, log: record ? this.#logs.slice(key, from, now) : null };
  }

  /**
   * Settles the record PROCESSING under `token` with `outcome(now)`, kept `ttlMs`, with the
   * fingerprint, runs and generations it had; its log lingers as a settled one.
   */
  #settle(key: string, token: string, ttlMs: number, outcome: (now: number) => SettledOutcome): Store.WriteResult {
    const now = this.#options.now();
    const current = this.#held(key, token, now);
    if (typeof current === 'string') return current;
    const { fingerprint, createdAt, runs, generation, continues } = current;
    this.#logs.settle(key, now, now + ttlMs);
    const record = { ...outcome(now), fingerprint, createdAt, runs, generation };
    this.#write(key, continues === undefined ? record : { ...record, continues }, now + ttlMs);
    return 'written';
  }

  #write(key: string, record: Store.IdempotencyRecord, expiresAt: number): void {
    // Re-inserted at the back: the Maps' order is write order.
    const scope = this.#entries.get(key)?.scope ?? splitKey(key).scope;
    this.#delete(key);
    this.#entries.set(key, { record, expiresAt, scope });
    let keys = this.#scopes.get(scope);
    if (!keys) this.#scopes.set(scope, (keys = new Set()));
    keys.add(key);
    this.#waiters.wake(key);
  }

  /**
   * A held record's lease moved to `leaseExpiresAt`, in place: a renewal (a streamed
   * answer's every append carries one) is no write of the answer, so the record keeps its
   * place in the eviction order, which its completion moves.
   */
  #renew(key: string, current: Store.ProcessingRecord, leaseExpiresAt: number): void {
    const record: Store.ProcessingRecord = { ...current, leaseExpiresAt };
    const entry = this.#entries.get(key) as Entry; // #held just read it
    this.#entries.set(key, { ...entry, record, expiresAt: leaseExpiresAt + this.#options.abandonedTtlMs });
    this.#waiters.wake(key);
  }

  #delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#entries.delete(key);
    const keys = this.#scopes.get(entry.scope) as Set<string>; // every held key is in its scope's set
    keys.delete(key);
    if (keys.size === 0) this.#scopes.delete(entry.scope);
  }

  /**
   * Frees one slot for a new key, fairly (`evictionOrder`): the first eligible scope with
   * a record that is expired or answered gives up its least recently written one.
   * Its readers and waiters are woken: one may still sleep on a record whose lease just
   * lapsed on the store's clock, before its own timer fired.
   */
  #makeRoom(key: string, now: number): void {
    if (this.#entries.size < this.#options.maxEntries) return;
    for (const keys of evictionOrder(this.#scopes, splitKey(key).scope)) if (this.#evictOne(keys, now)) return;
    throw new StoreUnavailableError(
      `answer-once: the memory store is full (${this.#options.maxEntries} records) and this scope has nothing left to evict.`,
    );
  }

  /** Evicts the least recently written record of `keys` that is expired or answered; false when all run. */
  #evictOne(keys: ReadonlySet<string>, now: number): boolean {
    for (const candidate of keys) {
      const { record, expiresAt } = this.#entries.get(candidate) as Entry;
      // A live lease means a live record: a PROCESSING record outlives its lease (abandonedTtlMs ≥ 0).
      if (record.state === 'processing' && record.leaseExpiresAt > now) continue;
      this.#delete(candidate);
      this.#logs.drop(candidate);
      this.#journals.drop(candidate);
      this.#waiters.wake(candidate); // its readers and waiters see it gone now, not at their timer
      if (expiresAt > now) {
        const { requestId } = splitKey(candidate);
        reporter(this.#options.onEvent, { requestId })({ type: 'evicted', key: candidate, state: record.state });
      }
      return true;
    }
    return false;
  }
}
