/**
 * `client.stream()`'s result: a streamed answer as an async iterable of parts, with what
 * the server said about it. Built on the resumable body of `client.fetch`, so a cut is
 * invisible here too; the restart and stop markers arrive as parts of their own.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ATTACHED_HEADER, GENERATION_HEADER, isTrueHeader, STOPPED_HEADER } from '../../core/headers.js';
import { RESTART_EVENT, restartGeneration, STOPPED_EVENT } from '../../core/stream-events.js';
import { isEventStream, parseGeneration } from '../../core/stream-protocol.js';
import type { OpenedAnswer } from '../extensions.js';

/** One piece of a streamed answer. */
export type StreamPart =
  /** A piece of a body that is not an event stream, decoded as UTF-8. */
  | { readonly type: 'text'; readonly text: string }
  /** One event of an event stream (`event` is its type, `undefined` for plain `data:` events). */
  | { readonly type: 'event'; readonly event: string | undefined; readonly data: string; readonly id: string | undefined }
  /** The answer started again on the server as `generation`: drop what you showed of it. */
  | { readonly type: 'restart'; readonly generation: number }
  /** The answer was stopped (PROTOCOL.md § 14.8): what came before is all there is. */
  | { readonly type: 'stopped' };

export interface AnswerStream extends AsyncIterable<StreamPart> {
  /** The intent's ID, the same on every attempt, poll and reconnect. */
  readonly requestId: string;
  /** The answering response; its body is what the parts are read from (read it once). */
  readonly response: Response;
  /** The answer was stored and is replayed: no work ran for it now. */
  readonly replayed: boolean;
  /** The answer is being produced by another attempt; this one joined it live. */
  readonly attached: boolean;
  /** A replay of an answer that was stopped. */
  readonly stopped: boolean;
  /** The generation the answer belongs to, when the server streams through a log. */
  readonly generation: number | undefined;
}

function partOf(message: EventSourceMessage): StreamPart {
  if (message.event === RESTART_EVENT) {
    const generation = restartGeneration(message.data);
    if (generation === undefined) throw new TypeError('answer-once: a restart marker without its generation');
    return { type: 'restart', generation };
  }
  if (message.event === STOPPED_EVENT) return { type: 'stopped' };
  return { type: 'event', event: message.event, data: message.data, id: message.id };
}

async function* partsOf(response: Response): AsyncGenerator<StreamPart> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const events = isEventStream(response.headers.get('content-type'));
  const queue: StreamPart[] = [];
  const parser = createParser({ onEvent: (message) => queue.push(partOf(message)) });
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      if (events) parser.feed(text);
      else if (text !== '') queue.push({ type: 'text', text });
      finished = done;
      yield* queue.splice(0);
      if (done) return;
    }
  } finally {
    // Left early (a `break`, an error in the loop): nobody reads the rest.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

export function answerStream(opened: OpenedAnswer): AnswerStream {
  const { headers } = opened.response;
  return {
    requestId: opened.requestId,
    response: opened.response,
    replayed: opened.replayed,
    attached: isTrueHeader(headers.get(ATTACHED_HEADER)),
    stopped: isTrueHeader(headers.get(STOPPED_HEADER)),
    generation: parseGeneration(headers.get(GENERATION_HEADER)),
    [Symbol.asyncIterator]: () => partsOf(opened.response),
  };
}
