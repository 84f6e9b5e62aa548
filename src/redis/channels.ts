import type { RedisMessageListener, RedisStoreClient, RedisStoreSubscriber } from './client.js';
import { RedisStoreClosedError, toStoreError } from './errors.js';
import { withDeadline } from './run-script.js';

interface Channel {
  readonly listeners: Set<() => void>;
  readonly dispatch: RedisMessageListener;
  readonly subscribed: Promise<void>;
  /** Set while nobody listens: the unsubscribe, due when it fires. */
  idle: ReturnType<typeof setTimeout> | undefined;
}

/**
 * How long a channel stays subscribed after its last listener left. A reader following a
 * live answer calls `read` once per batch and leaves between calls; without this each
 * batch would cost it an SSUBSCRIBE and an SUNSUBSCRIBE round trip.
 */
const IDLE_UNSUBSCRIBE_MS = 5_000;

/**
 * The store's one subscriber connection (`client.duplicate()`, opened on the first
 * `wait`), multiplexed: each channel is subscribed once however many waiters listen on
 * it, and unsubscribed a few seconds after the last one left.
 */
export class SettleChannels {
  readonly #client: RedisStoreClient;
  readonly #timeoutMs: number;
  readonly #onReconnect: () => void;
  readonly #channels = new Map<string, Channel>();
  #subscriber: Promise<RedisStoreSubscriber> | undefined;
  #connection: RedisStoreSubscriber | undefined;
  #closed = false;

  /** `onReconnect`: the connection came back; publishes made meanwhile may be lost. */
  constructor(client: RedisStoreClient, timeoutMs: number, onReconnect: () => void) {
    this.#client = client;
    this.#timeoutMs = timeoutMs;
    this.#onReconnect = onReconnect;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Whether `channel` is subscribed already (so `listen` costs no round trip). */
  isSubscribed(channel: string): boolean {
    return this.#channels.has(channel);
  }

  /**
   * Calls `onMessage` on every publish to `channel` (and on a reconnection, when messages
   * may have been missed). Resolves once Redis confirmed the subscription, so a read made
   * afterwards cannot miss a settle. Returns the function that stops listening.
   */
  async listen(channel: string, onMessage: () => void): Promise<() => void> {
    if (this.#closed) throw new RedisStoreClosedError('answer-once/redis: the store is closed');
    let entry = this.#channels.get(channel);
    if (!entry) {
      const listeners = new Set<() => void>();
      const dispatch: RedisMessageListener = () => {
        for (const listener of [...listeners]) listener();
      };
      const subscribed = this.connection().then((subscriber) => subscriber.sSubscribe(channel, dispatch));
      const created: Channel = { listeners, dispatch, subscribed, idle: undefined };
      subscribed.catch(() => {
        if (this.#channels.get(channel) === created) this.#channels.delete(channel);
      });
      this.#channels.set(channel, created);
      entry = created;
    }
    const joined = entry;
    clearTimeout(joined.idle);
    joined.idle = undefined;
    joined.listeners.add(onMessage);
    const unsubscribe = (): void => {
      if (joined.listeners.size > 0 || this.#channels.get(channel) !== joined) return;
      this.#channels.delete(channel);
      joined.subscribed.then(async () => (await this.#subscriber)?.sUnsubscribe(channel, joined.dispatch)).catch(() => {});
    };
    let left = false;
    const stop = (): void => {
      if (left) return;
      left = true;
      joined.listeners.delete(onMessage);
      if (joined.listeners.size > 0 || this.#channels.get(channel) !== joined) return;
      clearTimeout(joined.idle);
      joined.idle = setTimeout(unsubscribe, IDLE_UNSUBSCRIBE_MS);
      joined.idle.unref?.();
    };
    try {
      await withDeadline(joined.subscribed, this.#timeoutMs, 'wait');
    } catch (error) {
      stop();
      clearTimeout(joined.idle);
      unsubscribe();
      throw toStoreError(error, 'wait');
    }
    return stop;
  }

  /** Wakes every listener (they re-read and return), then closes the subscriber. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#ringAll();
    for (const { idle } of this.#channels.values()) clearTimeout(idle);
    this.#channels.clear();
    const connection = this.#connection;
    if (!connection?.isOpen) return;
    try {
      await withDeadline(connection.close(), this.#timeoutMs, 'close');
    } catch {
      connection.destroy();
    }
  }

  #ringAll(): void {
    for (const { dispatch } of this.#channels.values()) dispatch('', '');
  }

  /** The subscriber connection, opened on first use. */
  connection(): Promise<RedisStoreSubscriber> {
    if (this.#subscriber) return this.#subscriber;
    const subscriber = this.#client.duplicate();
    this.#connection = subscriber;
    // Failures surface as rejected subscribes and timed-out waits; reconnection is the client's.
    subscriber.on('error', () => {});
    // After a reconnection node-redis resubscribes, but publishes made meanwhile are lost.
    let connections = 0;
    subscriber.on('ready', () => {
      if (++connections <= 1) return;
      this.#ringAll();
      this.#onReconnect();
    });
    const connecting = subscriber.connect().then(() => subscriber);
    connecting.catch(() => {
      if (this.#subscriber === connecting) this.#subscriber = undefined;
      if (subscriber.isOpen) subscriber.destroy();
    });
    this.#subscriber = connecting;
    return connecting;
  }
}
