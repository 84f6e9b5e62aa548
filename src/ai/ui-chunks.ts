/**
 * A `client.fetch` body (an AI SDK UI message stream, SSE) → the `UIMessageChunk`s
 * `useChat` consumes, parsed with `eventsource-parser`. answer-once's own markers never
 * reach the AI SDK: the stop marker ends the stream (the answer is the partial one), and
 * a restart marker — the answer started again on the server after part of it was shown —
 * errors the stream with `AnswerRestartedError`, so `useChat` reports it and a
 * `resumeStream()` replays the new answer whole (the transport's resumes are replays).
 */
import type { UIMessageChunk } from 'ai';
import { createParser } from 'eventsource-parser';
import { RESTART_EVENT, STOPPED_EVENT } from '../core/stream-events.js';
import { AnswerRestartedError } from '../client/errors/answer-restarted-error.js';

export function uiMessageChunks(body: ReadableStream<Uint8Array>, requestId: string): ReadableStream<UIMessageChunk> {
  const decoder = new TextDecoder();
  let emitted = 0;
  let failure: unknown;
  let output!: TransformStreamDefaultController<UIMessageChunk>;
  const parser = createParser({
    onEvent(message) {
      if (failure) return;
      if (message.event === RESTART_EVENT) {
        const generation = Number((JSON.parse(message.data) as { generation?: unknown }).generation);
        if (emitted > 0) failure = new AnswerRestartedError(generation || undefined, { requestId, attempts: 0, polls: 0 });
        return;
      }
      if (message.event === STOPPED_EVENT || message.data === '[DONE]') return;
      try {
        output.enqueue(JSON.parse(message.data) as UIMessageChunk);
        emitted += 1;
      } catch (error) {
        failure = error;
      }
    },
  });
  return body.pipeThrough(
    new TransformStream<Uint8Array, UIMessageChunk>({
      start(controller) {
        output = controller;
      },
      transform(chunk) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        if (failure) throw failure;
      },
      flush() {
        parser.feed(decoder.decode());
        if (failure) throw failure;
      },
    }),
  );
}
