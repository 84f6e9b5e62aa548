/**
 * A `client.fetch` body (an AI SDK UI message stream, SSE) → the `UIMessageChunk`s
 * `useChat` consumes, parsed with `eventsource-parser`, each with the position of the
 * event it came from (what a stop names, PROTOCOL.md § 14.8). answer-once's own markers never
 * reach the AI SDK as such:
 *
 * - the stop marker ends the stream (the answer is the partial one);
 * - a restart marker (the answer started again on the server — its producer died, or its
 *   body broke and the resend ran the work again — after part of it was shown) is shown
 *   in place, without a seam. The new generation's chunks that repeat the shown ones (a
 *   journaled agent turn replays its finished steps byte for byte) are not handed on
 *   again; where it departs, the AI SDK's own `reset-step` chunk takes the last shown
 *   step back, and that step streams again as it now comes. `reset-step` removes one
 *   step, so a departure before the last shown step is shown in place only while the
 *   voided answer had at most one step and nothing before it; otherwise the stream errors
 *   with `AnswerRestartedError`, and the app's `resumeStream()` shows the new answer whole
 *   (the transport's resumes are replays, `resumeStreamIsReplay`).
 */
import type { UIMessageChunk } from 'ai';
import { createParser } from 'eventsource-parser';
import { AnswerRestartedError } from '../client/errors/answer-restarted-error.js';
import { RESTART_EVENT, restartGeneration, STOPPED_EVENT } from '../core/stream-events.js';

/** What the reader has of the current generation: enough to void it with one `reset-step`. */
interface Shown {
  /** Chunks handed on. */
  chunks: number;
  /** `start` was handed on: the message exists. */
  started: boolean;
  /** `start-step` chunks handed on. */
  steps: number;
  /** A chunk that adds a part came before the first step (a data part written first). */
  partsBeforeStep: boolean;
}

const START_STEP = JSON.stringify({ type: 'start-step' });

const fresh = (): Shown => ({ chunks: 0, started: false, steps: 0, partsBeforeStep: false });

/** A chunk and the position (`<generation>.<offset>`, its event's id) just after the event it came from. */
export interface PositionedChunk {
  readonly chunk: UIMessageChunk;
  readonly at: string | undefined;
}

export function uiMessageChunks(body: ReadableStream<Uint8Array>, requestId: string): ReadableStream<PositionedChunk> {
  const decoder = new TextDecoder();
  let shown = fresh();
  /** After a restart voided a shown answer: the new generation's chunks that would repeat what stays. */
  let skip: { start: boolean; step: boolean } | undefined;
  /** This generation's chunks the reader has (handed on, or shown already by a voided one). */
  let current: string[] = [];
  /** After a restart: the voided answer's chunks, and how many of them the new generation repeated so far. */
  let matching: { voided: string[]; at: number; generation: number | undefined } | undefined;
  let failure: unknown;
  let output!: TransformStreamDefaultController<PositionedChunk>;
  /** The id of the event being read: every chunk made of it is positioned after it. */
  let at: string | undefined;

  function restart(generation: number | undefined) {
    if (shown.chunks === 0) return;
    // Until the new generation departs from it, the reader still shows the voided answer.
    matching = { voided: matching?.voided ?? current, at: 0, generation };
    current = [];
  }

  /** The new generation departs from the voided answer (or ended shorter): void what it did not repeat. */
  function depart() {
    if (!matching) return;
    const { voided, at: repeated, generation } = matching;
    matching = undefined;
    if (repeated === voided.length) return;
    const isStep = (json: string) => json === START_STEP;
    if (!voided.slice(repeated).some(isStep)) {
      // Inside the last shown step: take it back and show it again, as far as it repeated.
      output.enqueue({ chunk: { type: 'reset-step' }, at });
      const stepStart = voided.slice(0, repeated).lastIndexOf(START_STEP);
      for (const json of voided.slice(stepStart + 1, repeated)) {
        const chunk = JSON.parse(json) as UIMessageChunk;
        if (chunk.type !== 'start') output.enqueue({ chunk, at });
      }
      return;
    }
    if (shown.steps > 1 || (shown.steps === 1 && shown.partsBeforeStep)) {
      failure = new AnswerRestartedError(generation, { requestId, attempts: 0, polls: 0 });
      return;
    }
    // Removes the parts of the (only) step, or every part when no step began; the
    // message itself and its step-start part stay, standing for the new answer's.
    output.enqueue({ chunk: { type: 'reset-step' }, at });
    const restarted = voided.slice(0, repeated).some((json) => (JSON.parse(json) as UIMessageChunk).type === 'start');
    skip = { start: shown.started && !restarted, step: shown.steps === 1 };
    shown = { ...fresh(), chunks: 1, started: shown.started, steps: shown.steps };
  }

  function pass(chunk: UIMessageChunk) {
    const json = JSON.stringify(chunk);
    if (matching && matching.voided[matching.at] === json) {
      matching.at += 1; // shown already
      current.push(json);
      return;
    }
    depart();
    if (failure) return;
    current.push(json);
    if (chunk.type === 'start' && skip?.start) {
      skip.start = false;
      if (chunk.messageMetadata != null)
        output.enqueue({ chunk: { type: 'message-metadata', messageMetadata: chunk.messageMetadata }, at });
      return;
    }
    if (chunk.type === 'start-step' && skip?.step) {
      skip.step = false;
      return;
    }
    if (chunk.type === 'start') shown.started = true;
    else if (chunk.type === 'start-step') shown.steps += 1;
    else if (shown.steps === 0 && chunk.type !== 'message-metadata') shown.partsBeforeStep = true;
    shown.chunks += 1;
    output.enqueue({ chunk, at });
  }

  const parser = createParser({
    onEvent(message) {
      if (failure) return;
      at = message.id;
      if (message.event === RESTART_EVENT) return restart(restartGeneration(message.data));
      if (message.event === STOPPED_EVENT || message.data === '[DONE]') return;
      try {
        pass(JSON.parse(message.data) as UIMessageChunk);
      } catch (error) {
        failure = error;
      }
    },
  });
  return body.pipeThrough(
    new TransformStream<Uint8Array, PositionedChunk>({
      start(controller) {
        output = controller;
      },
      transform(chunk) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        if (failure) throw failure;
      },
      flush() {
        parser.feed(decoder.decode());
        if (!failure) depart();
        if (failure) throw failure;
      },
    }),
  );
}
