import type { LogSnapshot } from '../server/store/stream-store.js';

/**
 * One round trip for the readers of one intent that look at the same moment. A publish
 * wakes every reader following an answer on this instance at once (thousands attached to
 * one intent); each would read the same new batch with its own script, so the instance
 * would send one read per reader per append. Instead a read joins the one in flight for
 * the same key and position — but only one sent after everything this instance has heard
 * since: a publish or a new subscription ends every earlier read's sharing, so a reader
 * woken by a write never gets a snapshot taken before it.
 */
export class SharedReads {
  /** Bumped by every publish a reader hears and every subscription confirmed. */
  #epoch = 0;
  readonly #inFlight = new Map<string, { readonly epoch: number; readonly snapshot: Promise<LogSnapshot> }>();

  /** Something may have changed that a read sent before now would not show. */
  readonly changed = (): void => {
    this.#epoch += 1;
  };

  /** The snapshot for `id` (key and position): the one in flight if sent since the last change, else `send()`'s. */
  read(id: string, send: () => Promise<LogSnapshot>): Promise<LogSnapshot> {
    const shared = this.#inFlight.get(id);
    if (shared && shared.epoch === this.#epoch) return shared.snapshot;
    const entry = { epoch: this.#epoch, snapshot: send() };
    this.#inFlight.set(id, entry);
    const done = (): void => {
      if (this.#inFlight.get(id) === entry) this.#inFlight.delete(id);
    };
    entry.snapshot.then(done, done);
    return entry.snapshot;
  }
}
