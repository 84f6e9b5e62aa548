import type { AnswerStream, StreamPart } from 'answer-once';

/** What `client.stream` resolves with, yielding `parts`: a fresh answer, not replayed or stopped. */
export function answerStreamOf(parts: StreamPart[]): AnswerStream {
  return {
    requestId: 'r',
    replayed: false,
    stopped: false,
    attached: false,
    generation: undefined,
    response: new Response(null),
    async *[Symbol.asyncIterator]() {
      yield* parts;
    },
  };
}
