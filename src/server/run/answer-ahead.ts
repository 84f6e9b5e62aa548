/**
 * An answer ahead of its outcome: it goes to its caller before the work's outcome is
 * written — a streamed answer once its head is in (PROTOCOL.md § 14.2), or, on a store
 * without logs, one over `maxResponseBytes` that streams on (§ 7.3). The run settles later; `answered` settles
 * with the answer as soon as it is sent, and never for a run that sent none.
 */
export class AnswerAhead<T> {
  #resolve!: (answer: T) => void;
  readonly answered = new Promise<T>((resolve) => (this.#resolve = resolve));

  /** Sends `answer` to the caller now (once: a later call changes nothing). */
  send(answer: T): void {
    this.#resolve(answer);
  }
}
