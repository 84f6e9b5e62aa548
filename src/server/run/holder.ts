import type { Reporter } from '../events.js';
import type { IdempotencyStore } from '../store/store.js';
import { withStoreDeadline } from '../store/store-call.js';

/** The write that found the record gone. */
export type LostOn = 'renew' | 'append' | 'complete' | 'fail';

export interface HolderOptions {
  readonly fingerprint: string;
  readonly leaseMs: number;
  readonly storeTimeoutMs: number;
  readonly report: Reporter;
}

/**
 * The claim a run holds on its intent: its fencing token and generation, which change
 * when the store loses the record mid-work (a Redis flush, a restart without
 * persistence, an eviction) and the run claims it again (PROTOCOL.md § 7.2). The first
 * write that finds the record gone — an append, a heartbeat's renew, the outcome's
 * write — claims it at once; every other write waits for that one claim instead of
 * making its own (two claims by one run would fence each other).
 */
export class Holder {
  readonly #store: IdempotencyStore;
  readonly #key: string;
  readonly #options: HolderOptions;
  #token: string;
  #generation: number | undefined;
  #reclaiming: Promise<boolean> | undefined;
  readonly #listeners: ((token: string, generation: number | undefined) => void)[] = [];

  constructor(store: IdempotencyStore, key: string, token: string, generation: number | undefined, options: HolderOptions) {
    this.#store = store;
    this.#key = key;
    this.#token = token;
    this.#generation = generation;
    this.#options = options;
  }

  get token(): string {
    return this.#token;
  }

  get generation(): number | undefined {
    return this.#generation;
  }

  /** Settles when no claim is in flight (at once when none is). */
  async settled(): Promise<void> {
    await this.#reclaiming?.catch(() => undefined);
  }

  /** Called with the new token and generation whenever the run claims its vanished record again. */
  onReclaimed(listener: (token: string, generation: number | undefined) => void): void {
    this.#listeners.push(listener);
  }

  /**
   * Claims the vanished record again (one claim in flight at a time; a write that finds
   * it gone while one is in flight shares it). `true`: this run holds the intent again,
   * under a new token; `false`: someone else claimed it first (or the store refused).
   * Rejects when the store fails.
   */
  reclaim(on: LostOn, token: string): Promise<boolean> {
    // A write under an older token that found the record gone is answered by the claim made since.
    if (token !== this.#token) return this.#reclaiming ?? Promise.resolve(true);
    this.#reclaiming ??= this.#claim(on).finally(() => {
      this.#reclaiming = undefined;
    });
    return this.#reclaiming;
  }

  async #claim(on: LostOn): Promise<boolean> {
    const { fingerprint, leaseMs, storeTimeoutMs, report } = this.#options;
    const key = this.#key;
    const claim = await withStoreDeadline(() => this.#store.acquire(key, fingerprint, leaseMs), 'acquire', storeTimeoutMs);
    report({ type: 'record-lost', key, operation: on, reclaimed: claim.acquired });
    if (!claim.acquired) return false;
    this.#token = claim.token;
    this.#generation = claim.generation;
    for (const listener of this.#listeners) listener(claim.token, claim.generation);
    return true;
  }
}
