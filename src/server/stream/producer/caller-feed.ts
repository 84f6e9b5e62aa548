import { ByteRuns } from '../../format/body.js';
import type { CallerBody } from './caller-body.js';

/**
 * What the attempt that runs the work gets: the units produced before it streams, held
 * (all of them, for a body that is all there at once), then its `CallerBody`, from the
 * position it named.
 */
export class CallerFeed {
  #early = new ByteRuns();
  #body: CallerBody | undefined;
  /** Body bytes before the caller's position still to come: not sent again (a continued answer, § 14.12). */
  #skip = 0;

  /** Bytes held before the answer streams. */
  get early(): number {
    return this.#early.byteLength;
  }

  push(unit: Uint8Array): void {
    if (!this.#body) this.#early.push(unit);
    else if (this.#skip >= unit.byteLength) this.#skip -= unit.byteLength;
    else {
      this.#body.push(this.#skip > 0 ? unit.subarray(this.#skip) : unit);
      this.#skip = 0;
    }
  }

  /** Drops what was held: the answer is framed anew. */
  restart(): void {
    this.#early = new ByteRuns();
  }

  /** What was held, joined, and no longer held. */
  takeEarly(): Uint8Array<ArrayBuffer> {
    const early = this.#early.join();
    this.#early = new ByteRuns();
    return early;
  }

  /** The answer streams: `first` (what was held) and all that follows go to `body`, from body byte `skip`. */
  attach(body: CallerBody, skip: number, first: Uint8Array | undefined): void {
    this.#body = body;
    this.#skip = skip;
    if (first) this.push(first);
  }
}
