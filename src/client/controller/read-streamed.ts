/**
 * How a streaming `SendController` reads its answer: `client.stream()`'s parts to their
 * end, the text so far reported as it grows (emptied by a restart), the whole text as
 * the answer, and whether it was stopped (the stop marker, or a stopped replay). What it
 * has shown — the text and the position of the last part — is kept in a {@link Shown},
 * so a stop can name that position and keep exactly that text.
 */
import { formatPosition } from '../../core/stream-events.js';
import type { SendResult } from '../send/run-intent.js';
import type { AnswerStream, StreamPart } from '../stream/answer-stream.js';

/** What a dispatch resolves with: the answer, whether it was replayed, and (streamed) stopped. */
export type Answered<TData> = Pick<SendResult<TData>, 'data' | 'replayed'> & { readonly stopped?: boolean };

/** Which text a streamed part adds to the answer; `undefined` adds none. */
export type StreamText = (part: StreamPart) => string | undefined;

/** A body's text, and the `data` of events without a type: what a plain token stream sends. */
export const defaultStreamText: StreamText = (part) =>
  part.type === 'text' ? part.text : part.type === 'event' && part.event === undefined ? part.data : undefined;

/**
 * What one streamed send has shown. `freeze()` (Stop pressed) keeps the text shown so far
 * and returns the position of the last part read; `keep(stopped)` says whether the
 * server honoured that stop — when it did not (the answer had already ended), the whole
 * answer is shown after all; `thaw()` (the stop was not confirmed: the answer goes on)
 * shows it again as it comes.
 */
export class Shown {
  /** The position (`<generation>.<offset>`) of the last part read, when the answer has positions. */
  position: string | undefined;
  #text = '';
  #frozen: string | undefined;
  #kept: Promise<boolean> | undefined;
  /** @internal Shows the text again after a thaw: the reader's `onText`. */
  onThaw: ((text: string) => void) | undefined;

  get frozen(): boolean {
    return this.#frozen !== undefined;
  }

  /** Stops showing more: the text stays as it is now. Returns where the reader is. */
  freeze(): string | undefined {
    this.#frozen ??= this.#text;
    return this.position;
  }

  /** Whether the stop that froze the text ended the stored answer (resolves `true`), or not. */
  keep(kept: Promise<boolean>): void {
    this.#kept = kept;
  }

  /** Shows the answer again from where it is now, and as it comes: the stop did not happen. */
  thaw(): void {
    if (this.#frozen === undefined) return;
    this.#frozen = undefined;
    this.#kept = undefined;
    this.onThaw?.(this.#text);
  }

  /** @internal The reader is at `text` (shown unless frozen). */
  show(text: string): void {
    this.#text = text;
  }

  /** The answer's text — the frozen text when the stop was honoured, else `whole` — and whether it was. */
  async answer(whole: string): Promise<{ text: string; stopped: boolean }> {
    if (this.#frozen === undefined || !(await this.#kept)) return { text: whole, stopped: false };
    return { text: this.#frozen, stopped: true };
  }
}

const encoder = /* @__PURE__ */ new TextEncoder();

/** Reads a streamed answer to its end, reporting its text so far; `data` is the whole text (or the frozen one). */
export async function readStreamed<TData>(
  opened: Promise<AnswerStream>,
  pick: StreamText,
  onText: (text: string) => void,
  shown: Shown = new Shown(),
): Promise<Answered<TData>> {
  const answer = await opened;
  shown.onThaw = onText;
  let text = '';
  let stopped = answer.stopped;
  /** Bytes of a body that is not an event stream, for its position. */
  let bytes = 0;
  const show = (next: string) => {
    text = next;
    shown.show(text);
    if (!shown.frozen) onText(text);
  };
  for await (const part of answer) {
    if (part.type === 'stopped') stopped = true;
    if (part.type === 'event' && part.id !== undefined && !shown.frozen) shown.position = part.id;
    if (part.type === 'text' && answer.generation !== undefined && !shown.frozen) {
      bytes += encoder.encode(part.text).byteLength;
      shown.position = formatPosition(answer.generation, bytes);
    }
    if (part.type === 'restart') {
      bytes = 0;
      if (!shown.frozen) shown.position = formatPosition(part.generation, 0);
      show('');
      continue;
    }
    const piece = pick(part);
    if (piece === undefined || piece === '') continue;
    show(text + piece);
  }
  const kept = await shown.answer(text);
  // A body that is not an event stream has no stop marker: the honoured stop says it.
  return { data: kept.text as TData, replayed: answer.replayed, stopped: stopped || kept.stopped };
}
