import type { RedisStoreSubscriber } from './client.js';
import { RedisStoreClosedError, toStoreError } from './errors.js';
import { withDeadline } from './run-script.js';

/** One watch: its holder's token, and how to wake it (`released`: the token no longer holds, no need to look). */
interface Watcher {
  readonly token: string;
  readonly wake: (released: boolean) => void;
}

/**
 * The holders' stop watch of one store, on ONE subscription however many runs watch: the
 * stop script publishes the record's name on the store's stop channel (plain pub/sub,
 * `scripts/stop.ts`), and this dispatches it to the watchers of that record in this
 * process. A run that watches for a stop costs no subscribe and no unsubscribe of its
 * own; the store subscribes on the first watch and stays subscribed until it closes.
 * Settles and takeovers made through this store release the watchers they end here
 * (`release`, no look needed); a takeover by another instance is seen at the watcher's
 * next look.
 */
export class StopWatchers {
  readonly #connect: () => Promise<RedisStoreSubscriber>;
  readonly #channel: string;
  readonly #timeoutMs: number;
  readonly #watchers = new Map<string, Set<Watcher>>();
  #subscribed: Promise<void> | undefined;
  #closed = false;

  constructor(connect: () => Promise<RedisStoreSubscriber>, channel: string, timeoutMs: number) {
    this.#connect = connect;
    this.#channel = channel;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Wakes `wake(false)` when a stop for `record` is published, `wake(true)` when `token`
   * was released here. Resolves once the store's stop channel is subscribed, so a look
   * made afterwards cannot miss a stop. Returns the function that stops watching.
   */
  async watch(record: string, token: string, wake: (released: boolean) => void): Promise<() => void> {
    if (this.#closed) throw new RedisStoreClosedError('answer-once/redis: the store is closed');
    let watchers = this.#watchers.get(record);
    if (!watchers) this.#watchers.set(record, (watchers = new Set()));
    const joined = watchers;
    const watcher: Watcher = { token, wake };
    joined.add(watcher);
    const stop = (): void => {
      joined.delete(watcher);
      if (joined.size === 0 && this.#watchers.get(record) === joined) this.#watchers.delete(record);
    };
    try {
      await withDeadline(this.#subscribe(), this.#timeoutMs, 'watchStop');
    } catch (error) {
      stop();
      throw toStoreError(error, 'watchStop');
    }
    return stop;
  }

  /** A stop for `record` was published: its watchers look. */
  readonly #ring = (record: string): void => {
    for (const watcher of [...(this.#watchers.get(record) ?? [])]) watcher.wake(false);
  };

  /** `record` was settled or taken over here: the watchers of `token` (every token: `undefined`) no longer hold it. */
  release(record: string, token?: string): void {
    for (const watcher of [...(this.#watchers.get(record) ?? [])]) {
      if (token === undefined || watcher.token === token) watcher.wake(true);
    }
  }

  /** Wakes every watcher to look again: after a reconnection, or on close. */
  ringAll(): void {
    for (const watchers of [...this.#watchers.values()]) for (const watcher of [...watchers]) watcher.wake(false);
  }

  close(): void {
    this.#closed = true;
    this.ringAll();
  }

  #subscribe(): Promise<void> {
    if (this.#subscribed) return this.#subscribed;
    const subscribing = this.#connect().then((subscriber) => subscriber.subscribe(this.#channel, this.#ring));
    subscribing.catch(() => {
      if (this.#subscribed === subscribing) this.#subscribed = undefined;
    });
    this.#subscribed = subscribing;
    return subscribing;
  }
}
