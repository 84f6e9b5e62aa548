/**
 * When this store last looked at an intent's log and found it ending at a position. A
 * reader following the answer asks again from exactly there as soon as it has passed the
 * bytes on; a look sent at once would find nothing new (it was just looked at), so the
 * reader sleeps out the rest of the poll interval first: one REST request per interval
 * while an answer streams, not two. Bounded: the oldest entries go first.
 */
export class RecentLooks {
  readonly #at = new Map<string, number>();
  readonly #limit: number;

  constructor(limit = 1_000) {
    this.#limit = limit;
  }

  /** The log of `key` ended at `generation`/`length` when a look sent at `at` (epoch ms) read it. */
  saw(key: string, generation: number, length: number, at: number): void {
    const id = `${key}\n${generation}\n${length}`;
    this.#at.delete(id);
    this.#at.set(id, at);
    if (this.#at.size > this.#limit) this.#at.delete(this.#at.keys().next().value!);
  }

  /** When a look found the log of `key` ending at `generation`/`offset`, once; undefined if none did lately. */
  take(key: string, generation: number, offset: number): number | undefined {
    const id = `${key}\n${generation}\n${offset}`;
    const at = this.#at.get(id);
    this.#at.delete(id);
    return at;
  }
}
