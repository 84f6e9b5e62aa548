import { concat } from '../../core/bytes.js';
import type { Reporter } from '../events.js';
import type { LogAppend, StreamStore } from '../store/stream-store.js';

export interface BatcherContext {
  readonly store: StreamStore;
  readonly key: string;
  readonly token: string;
  readonly flushMs: number;
  readonly flushBytes: number;
  /** Reports to the app's `onEvent`, with the intent's `requestId`. */
  readonly report: Reporter;
  /** An append said a stop was asked for this generation. */
  readonly onStop: () => void;
  /** An append was fenced: a successor holds the intent. */
  readonly onFenced: () => void;
  /**
   * An append found the record gone (`record`: the store lost it), or the record there
   * but not the log (`log`: the log alone was evicted). This batcher is closed; the run
   * may claim the intent again and open a new one.
   */
  readonly onLost: (what: 'record' | 'log') => void;
  /** Every append renews the lease to this (§ 14.9), so the heartbeat need not while they flow. */
  readonly leaseMs: number;
  /** An append renewed the lease. */
  readonly onRenewed: () => void;
}

/**
 * The holder's appends to the log (PROTOCOL.md § 14.2): batches due `flushMs` after their
 * first byte (the head's batch: after the head) or at `flushBytes`, at most one append in
 * flight, in order; a batch whose append threw is sent again alone at the same offset.
 * It stops for good once an append says `fenced`, `gone` or `offset` (telling the run which).
 * Each append carries `leaseMs`,
 * renewing the holder's lease in the same round trip.
 */
export class LogBatcher {
  readonly #context: BatcherContext;
  readonly #head: string;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #pendingSince: number;
  #appended = 0;
  #headLogged = false;
  #appending: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #retry: Uint8Array | undefined;
  #open = true;
  /** Past `maxResponseBytes`: appends keep only about this many bytes (§ 14.10). */
  retainBytes: number | undefined;

  /** The earlier generation whose log this one continues (§ 14.12), named on every append. */
  readonly #continues: number | undefined;

  /**
   * `continued`: append to the log of an earlier generation from its length instead of
   * opening one (PROTOCOL.md § 14.12); its first append goes at once (`now`), since
   * readers of that generation wait for it, and `drain` always sends it.
   */
  constructor(
    context: BatcherContext,
    head: string,
    since: number,
    continued?: { readonly generation: number; readonly offset: number },
  ) {
    this.#context = context;
    this.#head = head;
    this.#pendingSince = since;
    this.#continues = continued?.generation;
    this.#appended = continued?.offset ?? 0;
  }

  /** The first append landed: the log is open (or continued) under this batcher's token. */
  get logged(): boolean {
    return this.#headLogged;
  }

  /** Sends what is pending now, unless an append is in flight (its landing sends the next when due). */
  now(): void {
    if (!this.#appending && this.#hasWork()) this.#flush();
  }

  /** Queues bytes for the log; a batch goes out when due. */
  push(bytes: Uint8Array): void {
    if (this.#pendingBytes === 0) this.#pendingSince = Date.now();
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.byteLength;
    this.schedule();
  }

  /** Arms the timer for the batch due next (the head's, at first). */
  schedule(): void {
    if (this.#appending || !this.#hasWork()) return;
    const { flushMs, flushBytes } = this.#context;
    // A failed append is retried a flush window later, so a store that is down is not
    // hammered; otherwise at flushBytes the batch goes now, even while its timer runs
    // (whichever comes first).
    const retrying = this.#retry !== undefined;
    if (!retrying && this.#pendingBytes >= flushBytes) {
      this.#flush();
      return;
    }
    if (this.#timer) return;
    const delay = retrying ? flushMs : Math.max(0, this.#pendingSince + flushMs - Date.now());
    this.#timer = setTimeout(() => this.#flush(), delay);
  }

  /** Waits for the append in flight; with `all`, also sends what is pending (up to 3 tries). */
  async drain(all: boolean): Promise<void> {
    this.cancel();
    await this.#landed();
    // A continuation is only one once its first append landed: it is always sent.
    const needed = (): boolean => all || (this.#continues !== undefined && !this.#headLogged);
    for (let tries = 0; needed() && tries < 3 && this.#hasWork(); tries += 1) {
      this.#flush();
      await this.#landed();
    }
  }

  /** Until no append is in flight: one landing may send the next batch at once (`flushBytes`). */
  async #landed(): Promise<void> {
    while (this.#appending) await this.#appending;
  }

  /** No more batches: the record is about to settle (or the run ended). */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #hasWork(): boolean {
    return this.#open && (!this.#headLogged || this.#pendingBytes > 0 || this.#retry !== undefined);
  }

  /** Sends the next batch; its callers (the timer, `schedule`, `drain`) call it only with none in flight and work to do. */
  #flush(): void {
    this.cancel();
    const again = this.#retry !== undefined;
    const data = this.#retry ?? concat(this.#pending, this.#pendingBytes);
    if (again) this.#retry = undefined;
    else [this.#pending, this.#pendingBytes] = [[], 0];
    this.#appending = this.#append(data, again).finally(() => {
      this.#appending = undefined;
      this.schedule();
    });
  }

  async #append(data: Uint8Array, again: boolean): Promise<void> {
    const { store, key, token } = this.#context;
    try {
      // One object per append, no spreads: this runs once per flush window of every stream.
      const batch: { -readonly [K in keyof LogAppend]: LogAppend[K] } = {
        offset: this.#appended,
        data,
        leaseMs: this.#context.leaseMs,
      };
      if (!this.#headLogged) batch.head = this.#head;
      if (this.#continues !== undefined) batch.continues = this.#continues;
      if (this.retainBytes !== undefined) batch.retainBytes = this.retainBytes;
      const result = await store.append(key, token, batch);
      if (result.ok) {
        this.#context.onRenewed();
        this.#appended = result.length;
        this.#headLogged = true;
        if (result.stopRequested) this.#context.onStop();
      } else if (result.reason === 'offset' && again) {
        // The first try landed although its answer was lost: we are the only writer.
        this.#appended += data.byteLength;
        this.#headLogged = true;
      } else {
        this.#open = false;
        if (result.reason === 'fenced') this.#context.onFenced();
        else this.#context.onLost(result.reason === 'gone' ? 'record' : 'log');
      }
    } catch (error) {
      this.#context.report({ type: 'store-error', key, operation: 'append', error });
      this.#retry = data;
    }
  }
}
