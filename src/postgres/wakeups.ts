import { withDeadline } from '../core/deadline.js';
import type { PostgresNotification, PostgresPool, PostgresPoolClient } from './client.js';

/** How long the store waits for its listening connection before a wait polls instead. */
const CONNECT_TIMEOUT_MS = 2_000;
/** Reconnection backoff of the listening connection: doubled from the first to the last. */
const RECONNECT_MS = [100, 5_000] as const;

/**
 * The store's wake-ups: one connection held out of the pool that `LISTEN`s on the store's
 * channel, dispatching each NOTIFY (its payload names a key and what changed) to the
 * waiters of that payload. Waiters ask `live` whether to trust it: while it is off
 * (`notifications: false`) or down (the connection broke; it reconnects with backoff),
 * a wait polls instead, and every waiter is rung when the connection breaks and when it
 * is back, since notifications may have been missed in between.
 */
export class Wakeups {
  readonly #pool: PostgresPool;
  readonly #channel: string;
  readonly #enabled: boolean;
  readonly #listeners = new Map<string, Set<() => void>>();
  #client: PostgresPoolClient | undefined;
  #connecting: Promise<boolean> | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #backoff: number = RECONNECT_MS[0];
  #closed = false;

  constructor(pool: PostgresPool, channel: string, enabled: boolean) {
    this.#pool = pool;
    this.#channel = channel;
    this.#enabled = enabled;
  }

  /** Whether a NOTIFY reaches the waiters right now. */
  get live(): boolean {
    return this.#client !== undefined;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Whether `listen` would have to open the listening connection first (a round trip or more). */
  get costly(): boolean {
    return this.#enabled && !this.#closed && !this.#client && !this.#retry;
  }

  /**
   * Rings `ring` on every NOTIFY of one of `payloads`. Resolves once the listening
   * connection is up (or could not come up: the waiter then polls), so a read made
   * afterwards cannot miss a write. Returns the function that stops listening.
   */
  async listen(payloads: readonly string[], ring: () => void): Promise<() => void> {
    for (const payload of payloads) {
      let set = this.#listeners.get(payload);
      if (!set) this.#listeners.set(payload, (set = new Set()));
      set.add(ring);
    }
    if (this.costly) await this.#connect();
    return () => {
      for (const payload of payloads) {
        const set = this.#listeners.get(payload);
        set?.delete(ring);
        if (set?.size === 0) this.#listeners.delete(payload);
      }
    };
  }

  /** Wakes every waiter (they re-read and return) and releases the listening connection. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#ringAll();
    this.#drop();
  }

  #connect(): Promise<boolean> {
    this.#connecting ??= this.#open().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #open(): Promise<boolean> {
    const connecting = this.#pool.connect();
    let client: PostgresPoolClient;
    try {
      client = await withDeadline(connecting, CONNECT_TIMEOUT_MS, () => new Error('the listening connection timed out'));
    } catch {
      connecting.then((late) => late.release(true)).catch(() => {});
      this.#scheduleReconnect();
      return false;
    }
    const broken = (): void => {
      if (this.#client !== client) return;
      this.#drop();
      this.#ringAll();
      this.#scheduleReconnect();
    };
    client.on('notification', (message: PostgresNotification) => this.#dispatch(message));
    client.on('error', broken);
    client.on('end', broken);
    try {
      await withDeadline(client.query(`LISTEN "${this.#channel}"`), CONNECT_TIMEOUT_MS, () => new Error('LISTEN timed out'));
    } catch {
      client.removeAllListeners();
      client.on('error', () => {});
      client.release(true);
      this.#scheduleReconnect();
      return false;
    }
    if (this.#closed) {
      client.removeAllListeners();
      client.release(true);
      return false;
    }
    const reconnected = this.#backoff > RECONNECT_MS[0];
    this.#client = client;
    this.#backoff = RECONNECT_MS[0];
    if (reconnected) this.#ringAll();
    return true;
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#connect();
    }, this.#backoff);
    this.#retry.unref?.();
    this.#backoff = Math.min(this.#backoff * 2, RECONNECT_MS[1]);
  }

  #drop(): void {
    const client = this.#client;
    this.#client = undefined;
    if (!client) return;
    client.removeAllListeners();
    client.on('error', () => {}); // a late socket error must not become an unhandled 'error'
    // Released as broken: the pool destroys it rather than hand a LISTENing connection to a query.
    client.release(true);
  }

  #dispatch({ channel, payload }: PostgresNotification): void {
    if (channel !== this.#channel || payload === undefined) return;
    for (const ring of [...(this.#listeners.get(payload) ?? [])]) ring();
  }

  #ringAll(): void {
    for (const set of [...this.#listeners.values()]) for (const ring of [...set]) ring();
  }
}
