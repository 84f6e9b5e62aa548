/** § 14.8: a stop keeps the answer the stopping reader saw, and every later answer is exactly it. */
import { isTrueHeader, LAST_EVENT_ID_HEADER, STOPPED_HEADER } from '../../core/headers.js';
import { STOPPED_EVENT } from '../../core/stream-events.js';
import { byteDifference, eventUnits, text } from '../bytes.js';
import type { CheckCase } from '../case.js';
import { answerOf, expectSameAnswer, kindOf, read } from '../expect.js';
import { fail, skip } from '../outcome.js';
import { type Answer, describeAnswer, parseJson } from '../wire.js';
import { cutStream } from './streamed.js';

/** Events the reader shows before it stops. */
const UNITS_BEFORE_STOP = 2;

/** Fails unless `stored` is `prefix`, then one stop marker whose id is the end of the answer (§ 14.8). */
function expectStoppedAt(stored: Answer, prefix: Uint8Array, generation: number, what = 'the stopped answer'): void {
  const head = byteDifference(stored.body.subarray(0, prefix.length), prefix);
  if (head) fail(`${what} does not start with the ${prefix.length} bytes the reader showed: ${head}`);
  const rest = stored.body.subarray(prefix.length);
  const units = eventUnits(rest);
  const marker = units[0];
  const valid =
    units.length === 1 &&
    marker?.end === rest.length &&
    marker.event === STOPPED_EVENT &&
    marker.position?.generation === generation &&
    marker.position.offset === stored.body.length;
  if (!valid)
    fail(
      `after the ${prefix.length} bytes the reader showed, ${what} has ${JSON.stringify(text(rest))}, not one ${STOPPED_EVENT} marker ending it`,
    );
}

export const stopCases: readonly CheckCase[] = [
  {
    id: 'stop',
    section: '§ 14.8',
    title: 'A stop keeps the partial answer the reader saw, and a replay shows exactly it',
    async run(wire) {
      const { id, generation, cut, position: at } = await cutStream(wire, UNITS_BEFORE_STOP);
      const stop = await read(wire, wire.status(id, { method: 'DELETE', headers: { [LAST_EVENT_ID_HEADER]: at } }));
      const code = parseJson(stop.body)?.code;
      if (stop.response.status === 501 && code === 'stop-unsupported')
        skip('the server cannot stop an intent (501 stop-unsupported, § 14.11)');
      if (cut.ended || (stop.response.ok && stop.response.status !== 202)) {
        skip(
          `the answer had ended before the stop arrived (${cut.offset} bytes read): nothing was left to stop; a longer answer shows it`,
        );
      }
      if (stop.response.status !== 202)
        fail(
          `DELETE ${wire.statusUrl(id).pathname} was answered ${describeAnswer(stop.response, stop.body)}, not 202 stopping`,
        );
      // While the holder stops, a reader may attach (§ 14.6): it, too, gets exactly the stopped answer, and ends with it.
      let stored = await wire.settled(wire.statusUrl(id));
      if (kindOf(stored) === 'attached') {
        expectStoppedAt(stored, cut.prefix, generation, 'the answer attached to while stopping');
        stored = await wire.settled(wire.statusUrl(id));
      }
      if (!stored.response.ok || !isTrueHeader(stored.response.headers.get(STOPPED_HEADER))) {
        fail(
          `once stopped, the status URL answered ${describeAnswer(stored.response, stored.body)} without ${STOPPED_HEADER}: true`,
        );
      }
      expectStoppedAt(stored, cut.prefix, generation);
      const again = await answerOf(wire, wire.send(id), 'the resend after the stop');
      expectSameAnswer(again, stored, 'the resend after the stop');
      if (!isTrueHeader(again.response.headers.get(STOPPED_HEADER)))
        fail(`the resend after the stop has no ${STOPPED_HEADER}: true`);
      return `stopped at ${at}: the replay is the ${cut.offset} bytes shown and the stop marker, and so is a resend`;
    },
  },
];
