import { concat } from '../../../core/bytes.js';
import type { AnswerHead } from '../../format/answer-head.js';
import { restartMarker } from '../../format/sse-frame.js';
import type { AnswerBytes } from './answer-bytes.js';
import { type CallerPosition, delivered, restarts } from './delivered.js';
import { answered, type Production } from './production.js';

/**
 * The phase for a body that was all there at once (a JSON answer): it ends (with the stop
 * marker when stopped), and the answer and the attempt's body are joined once — a
 * restart marker first when the caller named another generation (§ 14.5).
 */
export function answerWhole(
  response: Response,
  head: AnswerHead,
  bytes: AnswerBytes,
  answer: { readonly own: number; readonly position: CallerPosition | undefined; readonly stopped: boolean },
): Extract<Production, { whole: true }> {
  bytes.end();
  if (answer.stopped) bytes.stop();
  const body = bytes.caller.takeEarly();
  const { generation } = bytes;
  const marker = restarts(answer.position, generation) && bytes.framing.sse ? restartMarker(generation) : undefined;
  return {
    whole: true,
    // Nothing streamed, so what was kept is what was produced.
    produced: answered(head, bytes.log.keeps ? body : undefined, answer.stopped),
    delivered: delivered(response, marker ? concat([marker, body], marker.byteLength + body.byteLength) : body, {
      generation,
      own: answer.own,
      position: answer.position,
    }),
  };
}
