import { ByteRuns } from '../../format/body.js';
import { EventFramer } from '../event-framer.js';
import { ReservedEventFilter } from '../reserved-events.js';

/**
 * The work's body as the answer's units (PROTOCOL.md § 14.4): an event stream with the
 * handler's reserved `answer-once.` events dropped (only the server writes markers) and
 * every event framed with its position in the answer's generation; any other body as it
 * came. While the answer may still continue a logged one (§ 14.12), the handler's bytes
 * are kept too, to be framed anew in the run's own generation if it does not.
 */
export class Framing {
  readonly #emit: (unit: Uint8Array) => void;
  readonly #reserved: ReservedEventFilter | undefined;
  #framer: EventFramer | undefined;
  #seen: ByteRuns | undefined;

  constructor(sse: boolean, generation: number, keepSeen: boolean, emit: (unit: Uint8Array) => void) {
    this.#emit = emit;
    if (!sse) return;
    this.#reserved = new ReservedEventFilter();
    this.#framer = new EventFramer(generation, emit);
    if (keepSeen) this.#seen = new ByteRuns();
  }

  /** The body is an event stream, framed with positions. */
  get sse(): boolean {
    return this.#framer !== undefined;
  }

  /** Bytes of the answer body framed so far. */
  get offset(): number {
    return this.#framer?.offset ?? 0;
  }

  /** What was seen can be framed anew (an event stream that may still continue a logged answer). */
  get reframes(): boolean {
    return this.#seen !== undefined;
  }

  /** Feeds the work's next bytes. */
  write(bytes: Uint8Array): void {
    if (!this.#framer || !this.#reserved) {
      this.#emit(bytes);
      return;
    }
    const handled = this.#reserved.write(bytes);
    this.#seen?.push(handled);
    this.#framer.write(handled);
  }

  /** The answer continues the logged one: what was seen is framed as it should be. */
  forget(): void {
    this.#seen = undefined;
  }

  /** The answer is the run's own: everything seen is framed anew in `generation`. */
  reframe(generation: number): void {
    if (!this.#seen) return;
    const handled = this.#seen.join();
    this.#seen = undefined;
    this.#framer = new EventFramer(generation, this.#emit);
    this.#framer.write(handled);
  }

  /** Appends one unit of the server's own (the stop marker) after the handler's events. */
  writeOwn(unit: Uint8Array): void {
    this.#framer?.writeOwn(unit);
  }

  /** The body ended: an unterminated last event is dropped, as an EventSource would. */
  end(): void {
    if (!this.#framer || !this.#reserved) return;
    this.#framer.write(this.#reserved.end());
    this.#framer.end();
  }
}
