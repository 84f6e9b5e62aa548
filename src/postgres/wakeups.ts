import { withDeadline } from '../server/store/deadline.js';
import type { PostgresClient, PostgresNotification, PostgresPool } from './client.js';

/**
 * How long the first waiter waits for the listening connection to open before it polls
 * instead. The opening goes on (a loaded machine may take longer to start a backend):
 * when it is up, every waiter is rung and looks again.
 */
const CONNECT_WAIT_MS = 2_000;
/** How long one opening (connect and `LISTEN`) may take before it is given up and tried again. */
const OPEN_TIMEOUT_MS = 30_000;
/** Reconnection backoff of the listening connection: doubled from the first to the last. */
const RECONNECT_MS = [100, 5_000] as const;
/**
 * How long the listening connection stays open after its last waiter left. A reader
 * following a live answer calls `read` once per batch and leaves between calls; without
 * this each batch would open a connection (the Redis store keeps its channels as long).
 */
const IDLE_CLOSE_MS = 5_000;
/** How long a remembered payload's last NOTIFY is kept (`heardNoneSince` of older times says no). */
const HEARD_MS = 60_000;

/** A pool's way to open one connection of the store's own, or undefined when it has none. */
function connectionMaker(pool: PostgresPool): (() => PostgresClient) | undefined {
  const { Client, options } = pool;
  if (typeof Client !== 'function' || typeof options !== 'object' || options === null) return undefined;
  return () => new Client(options as never);
}

/**
 * The store's wake-ups: while anyone waits, one connection of the store's own (never one of
 * the pool's, so statements are never starved of the pool) `LISTEN`s on the store's
 * channel, dispatching each NOTIFY (its payload names a key and what changed) to the
 * waiters of that payload; it is ended `IDLE_CLOSE_MS` after the last waiter left.
 * Waiters ask `live` whether to trust it: while it is off (`notifications: false`, or a
 * pool that cannot open connections of its own: reported once) or down (it broke, or broke
 * while opening; it reconnects with backoff), a wait polls instead, and every waiter is
 * rung when the connection breaks and when it is back, since notifications may have been
 * missed in between.
 *
 * For the payloads `remembered` picks (the stops), it also keeps when each was last
 * heard, so a waiter can tell that none came since a time without asking the database.
 */
export class Wakeups {
  readonly #open: (() => PostgresClient) | undefined;
  readonly #channel: string;
  readonly #listeners = new Map<string, Set<() => void>>();
  readonly #remembered: (payload: string) => boolean;
  /** When each remembered payload was last heard, oldest first (kept `HEARD_MS`). */
  readonly #heard = new Map<string, number>();
  /** Since when the listening connection has been up without a break. */
  #liveSince: number | undefined;
  #client: PostgresClient | undefined;
  #connecting: Promise<boolean> | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #idle: ReturnType<typeof setTimeout> | undefined;
  #backoff: number = RECONNECT_MS[0];
  #warned: boolean;
  #closed = false;

  constructor(pool: PostgresPool, channel: string, enabled: boolean, remembered: (payload: string) => boolean) {
    this.#open = enabled ? connectionMaker(pool) : undefined;
    this.#channel = channel;
    this.#remembered = remembered;
    this.#warned = !enabled;
  }

  /** Whether a NOTIFY reaches the waiters right now. */
  get live(): boolean {
    return this.#client !== undefined;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Whether `listen` would open the listening connection first (a round trip or more) and wait for it. */
  get costly(): boolean {
    return this.#open !== undefined && !this.#closed && !this.#client && !this.#retry && !this.#connecting;
  }

  /**
   * Rings `ring` on every NOTIFY of one of `payloads`, and whenever the listening
   * connection comes up or breaks (notifications may have been missed meanwhile). When it
   * opens the connection, resolves once it is up or after `CONNECT_WAIT_MS` (the waiter
   * then polls until it is rung), so a read made afterwards cannot miss a write. Returns
   * the function that stops listening.
   */
  async listen(payloads: readonly string[], ring: () => void): Promise<() => void> {
    clearTimeout(this.#idle);
    this.#idle = undefined;
    for (const payload of payloads) {
      let set = this.#listeners.get(payload);
      if (!set) this.#listeners.set(payload, (set = new Set()));
      set.add(ring);
    }
    if (!this.#open) this.#warnPolling();
    else if (this.costly)
      await withDeadline(
        this.#connect(),
        CONNECT_WAIT_MS,
        () => new Error('the listening connection is still opening'),
      ).catch(() => {});
    return () => {
      for (const payload of payloads) {
        const set = this.#listeners.get(payload);
        set?.delete(ring);
        if (set?.size === 0) this.#listeners.delete(payload);
      }
      if (this.#listeners.size === 0) this.#closeWhenIdle();
    };
  }

  /**
   * Whether every NOTIFY of the remembered `payload` made since `since` would have been
   * heard (the connection has listened without a break since before it), and none was.
   */
  heardNoneSince(payload: string, since: number): boolean {
    if (this.#liveSince === undefined || this.#liveSince > since || Date.now() - since >= HEARD_MS) return false;
    const heard = this.#heard.get(payload);
    return heard === undefined || heard < since;
  }

  /** Wakes every waiter (they re-read and return) and ends the listening connection. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#retry);
    clearTimeout(this.#idle);
    this.#ringAll();
    this.#drop();
  }

  #connect(): Promise<boolean> {
    this.#connecting ??= this.#connectOnce().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connectOnce(): Promise<boolean> {
    const client = (this.#open as () => PostgresClient)();
    // Set by the connection's first error or end, whenever it comes: a connection that broke
    // while opening (before it was trusted) is never trusted.
    let broken = false;
    const onBroken = (): void => {
      broken = true;
      if (this.#client !== client) return;
      this.#drop();
      this.#ringAll();
      this.#scheduleReconnect();
    };
    client.on('error', onBroken);
    client.on('end', onBroken);
    client.on('notification', (message: PostgresNotification) => this.#dispatch(message));
    const opening = (async () => {
      await client.connect();
      await client.query(`LISTEN "${this.#channel}"`);
    })();
    try {
      await withDeadline(opening, OPEN_TIMEOUT_MS, () => new Error('the listening connection did not open'));
    } catch {
      broken = true;
    }
    if (broken || this.#closed) {
      end(client);
      this.#scheduleReconnect();
      return false;
    }
    this.#client = client;
    this.#liveSince = Date.now();
    this.#backoff = RECONNECT_MS[0];
    if (this.#listeners.size === 0) this.#closeWhenIdle();
    // Waiters that polled while it opened, or while it was down, look again: from now on a NOTIFY reaches them.
    this.#ringAll();
    return true;
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retry || this.#listeners.size === 0) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#listeners.size > 0) void this.#connect();
    }, this.#backoff);
    this.#retry.unref?.();
    this.#backoff = Math.min(this.#backoff * 2, RECONNECT_MS[1]);
  }

  /** Ends the listening connection `IDLE_CLOSE_MS` from now, unless someone listens again. */
  #closeWhenIdle(): void {
    if (this.#idle || !this.#client) return;
    this.#idle = setTimeout(() => {
      this.#idle = undefined;
      if (this.#listeners.size === 0) this.#drop();
    }, IDLE_CLOSE_MS);
    this.#idle.unref?.();
  }

  #drop(): void {
    const client = this.#client;
    this.#client = undefined;
    this.#liveSince = undefined;
    if (client) end(client);
  }

  #warnPolling(): void {
    if (this.#warned) return;
    this.#warned = true;
    process.emitWarning(
      'answer-once/postgres: the pool cannot open a connection of its own (it has no `Client` and `options`, as pg.Pool does), so waiting requests poll every `pollIntervalMs` instead of being woken by NOTIFY. Pass a pg.Pool, or `notifications: false` to say polling is meant.',
      { code: 'ANSWER_ONCE_POSTGRES_POLLING' },
    );
  }

  #dispatch({ channel, payload }: PostgresNotification): void {
    if (channel !== this.#channel || payload === undefined) return;
    if (this.#remembered(payload)) this.#remember(payload);
    for (const ring of [...(this.#listeners.get(payload) ?? [])]) ring();
  }

  #remember(payload: string): void {
    const now = Date.now();
    this.#heard.delete(payload);
    this.#heard.set(payload, now);
    for (const [oldest, at] of this.#heard) {
      if (now - at < HEARD_MS) break;
      this.#heard.delete(oldest);
    }
  }

  #ringAll(): void {
    for (const set of [...this.#listeners.values()]) for (const ring of [...set]) ring();
  }
}

/** Ends a listening connection for good; a late socket error must not become an unhandled 'error'. */
function end(client: PostgresClient): void {
  client.removeAllListeners();
  client.on('error', () => {});
  client.end().catch(() => {});
}
