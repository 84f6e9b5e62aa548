/**
 * How a streaming `SendController` reads its answer: `client.stream()`'s parts to their
 * end, the text so far reported as it grows (emptied by a restart), the whole text as
 * the answer, and whether it was stopped (the stop marker, or a stopped replay).
 */
import type { SendResult } from './run-intent.js';
import type { AnswerStream, StreamPart } from './stream/answer-stream.js';

/** What a dispatch resolves with: the answer, whether it was replayed, and (streamed) stopped. */
export type Answered<TData> = Pick<SendResult<TData>, 'data' | 'replayed'> & { readonly stopped?: boolean };

/** Which text a streamed part adds to the answer; `undefined` adds none. */
export type StreamText = (part: StreamPart) => string | undefined;

/** A body's text, and the `data` of events without a type: what a plain token stream sends. */
export const defaultStreamText: StreamText = (part) =>
  part.type === 'text' ? part.text : part.type === 'event' && part.event === undefined ? part.data : undefined;

/** Reads a streamed answer to its end, reporting its text so far; `data` is the whole text. */
export async function readStreamed<TData>(
  opened: Promise<AnswerStream>,
  pick: StreamText,
  onText: (text: string) => void,
): Promise<Answered<TData>> {
  const answer = await opened;
  let text = '';
  let stopped = answer.stopped;
  for await (const part of answer) {
    if (part.type === 'stopped') stopped = true;
    if (part.type === 'restart') {
      text = '';
      onText(text);
      continue;
    }
    const piece = pick(part);
    if (piece === undefined || piece === '') continue;
    text += piece;
    onText(text);
  }
  return { data: text as TData, replayed: answer.replayed, stopped };
}
