import type { RedisStoreSubscriber } from './client.js';
import { RedisStoreClosedError, toStoreError } from './errors.js';
import { withDeadline } from './run-script.js';

/**
 * How long the watchers remember that a stop for a record was heard: a watch of a claim
 * sent longer ago than this looks once, as any watch would.
 */
const HEARD_MS = 60_000;

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
 *
 * A watch need not look at all when the channel was listened to, without a break, since
 * before its claim was sent and no stop for its record was heard since: a claim's record
 * starts without a stop, and every stop made after it is published after it.
 */
export class StopWatchers {
  readonly #connect: () => Promise<RedisStoreSubscriber>;
  readonly #channel: string;
  readonly #timeoutMs: number;
  readonly #watchers = new Map<string, Set<Watcher>>();
  /** When a stop for each record was last heard, oldest first (kept `HEARD_MS`). */
  readonly #heard = new Map<string, number>();
  /** Since when every publish on the channel is heard (`undefined`: not known to be). */
  #listeningSince: number | undefined;
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
   * made afterwards cannot miss a stop, with the function that stops watching and whether
   * that look is needed: it is not when the channel has been heard without a break since
   * `claimSentAt` (when the claim of `token` was sent) and no stop for `record` since.
   */
  async watch(
    record: string,
    token: string,
    wake: (released: boolean) => void,
    claimSentAt?: number,
  ): Promise<{ readonly stop: () => void; readonly look: boolean }> {
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
    return { stop, look: !this.#heardAll(record, claimSentAt) };
  }

  /** Whether every stop for `record` since `since` would have been heard, and none was. */
  #heardAll(record: string, since: number | undefined): boolean {
    if (since === undefined || this.#listeningSince === undefined || this.#listeningSince > since) return false;
    if (Date.now() - since >= HEARD_MS) return false;
    const heard = this.#heard.get(record);
    return heard === undefined || heard < since;
  }

  /** A stop for `record` was published: its watchers look. */
  readonly #ring = (record: string): void => {
    const now = Date.now();
    // A publish heard proves the subscription was up when it was made: after a
    // reconnection, the channel is known to be heard from here on.
    this.#listeningSince ??= now;
    this.#heard.delete(record);
    this.#heard.set(record, now);
    for (const [oldest, at] of this.#heard) {
      if (now - at < HEARD_MS) break;
      this.#heard.delete(oldest);
    }
    for (const watcher of [...(this.#watchers.get(record) ?? [])]) watcher.wake(false);
  };

  /** `record` was settled or taken over here: the watchers of `token` (every token: `undefined`) no longer hold it. */
  release(record: string, token?: string): void {
    for (const watcher of [...(this.#watchers.get(record) ?? [])]) {
      if (token === undefined || watcher.token === token) watcher.wake(true);
    }
  }

  /** The subscriber reconnected: publishes made meanwhile are lost, every watcher looks again. */
  reconnected(): void {
    this.#listeningSince = undefined;
    this.ringAll();
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
    const subscribing = this.#connect()
      .then((subscriber) => subscriber.subscribe(this.#channel, this.#ring))
      .then(() => {
        this.#listeningSince ??= Date.now();
      });
    subscribing.catch(() => {
      if (this.#subscribed === subscribing) this.#subscribed = undefined;
    });
    this.#subscribed = subscribing;
    return subscribing;
  }
}
