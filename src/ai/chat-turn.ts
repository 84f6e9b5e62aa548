/**
 * One submitted request of a chat, as the transport reads it. An edit (`sendMessage` with
 * a `messageId`) or a regenerate rewrites the chat's history; while the answer before it
 * still streams, useChat reads both answers and — its old message no longer in the list —
 * appends the old answer after the new one, while the old run goes on. The transport
 * makes the newer turn supersede the older: the older is stopped on the server and hands
 * useChat no more chunks; its stream ends once the newer one's has (ending it sooner would
 * tell useChat the chat is `ready` while the newer answer is still coming).
 */
export class ChatTurn {
  readonly requestId: string;
  /** Settles when this turn's reader is done: its stream ended or was cancelled, or it never got one. */
  readonly ended: Promise<void>;
  #end!: () => void;
  #successor: ChatTurn | undefined;
  #onSuperseded: ((successor: ChatTurn) => void) | undefined;

  constructor(requestId: string) {
    this.requestId = requestId;
    this.ended = new Promise<void>((resolve) => (this.#end = resolve));
  }

  /** This turn's reader is done once `done` settles (now, with none). */
  endWith(done?: Promise<void>): void {
    if (done) void done.finally(this.#end).catch(() => undefined);
    else this.#end();
  }

  /** `successor` rewrote the history this turn answers: see the file's comment. */
  supersede(successor: ChatTurn): void {
    if (this.#successor) return;
    this.#successor = successor;
    this.#onSuperseded?.(successor);
  }

  /** Calls `listener` once this turn is superseded (at once, when it already is). */
  onSuperseded(listener: (successor: ChatTurn) => void): void {
    this.#onSuperseded = listener;
    if (this.#successor) listener(this.#successor);
  }
}
