import type { LogSlice } from '../store/stream-store.js';

/**
 * The answer an earlier generation logged, and how far a new claim's answer body has
 * reproduced it (PROTOCOL.md § 14.12). The claim continues that answer only when its
 * head is the logged one and its body reproduces every logged byte, in order; one byte
 * that differs, or a body that ends short, and it answers in its own generation.
 */
export class LoggedAnswer {
  /** The logged generation: the new claim frames its events in it while it may continue it (§ 14.4). */
  readonly generation: number;
  readonly #bytes: Uint8Array;
  #matched = 0;
  #differs = false;

  /** `undefined` when `log` cannot be continued: not of an earlier generation, trimmed, empty, or of another head. */
  static of(log: LogSlice | null | undefined, generation: number, head: string): LoggedAnswer | undefined {
    const whole = log && log.generation < generation && log.offset === 0 && log.length > 0 && log.head === head;
    return whole ? new LoggedAnswer(log) : undefined;
  }

  private constructor(log: LogSlice) {
    this.generation = log.generation;
    this.#bytes = log.data;
  }

  /** The logged answer body's length: where the continuation appends from. */
  get length(): number {
    return this.#bytes.byteLength;
  }

  /** Still comparing: no byte differed and some logged bytes are not reproduced yet. */
  get open(): boolean {
    return !this.#differs && this.#matched < this.#bytes.byteLength;
  }

  /** Every logged byte was reproduced: the claim continues this answer. */
  get reproduced(): boolean {
    return !this.#differs && this.#matched === this.#bytes.byteLength;
  }

  /** Compares the answer body's next bytes with the logged ones (bytes past the log are the continuation's). */
  compare(bytes: Uint8Array): void {
    if (!this.open) return;
    const count = Math.min(bytes.byteLength, this.#bytes.byteLength - this.#matched);
    for (let k = 0; k < count; k += 1) {
      if (bytes[k] !== this.#bytes[this.#matched + k]) {
        this.#differs = true;
        return;
      }
    }
    this.#matched += count;
  }
}
