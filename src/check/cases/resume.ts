/** § 14.5: a cut streamed answer resumes from its position — no byte twice, none missing — and positions past its end are answered as the table says. */
import {
  GENERATION_HEADER,
  isTrueHeader,
  LAST_EVENT_ID_HEADER,
  RANGE_HEADER,
  RESTARTED_HEADER,
} from '../../core/headers.js';
import { isEventStream } from '../../core/stream-protocol.js';
import { restartMarkerText } from '../../core/stream-events.js';
import { byteDifference, concat } from '../bytes.js';
import type { CheckCase } from '../case.js';
import { fail } from '../outcome.js';
import { answerOf, read } from '../expect.js';
import { describeAnswer } from '../wire.js';
import { generationOf, readAndCut, requireEventStream } from './streamed.js';

/** Events the check reads before it cuts the connection. */
const UNITS_BEFORE_CUT = 2;

export const resumeCases: readonly CheckCase[] = [
  {
    id: 'resume',
    section: '§ 14.5',
    title: 'A cut stream resumed by Last-Event-ID continues with no byte twice and none missing',
    async run(wire) {
      const id = wire.newId();
      const response = await wire.send(id);
      if (!response.ok) fail(`a new intent was answered ${describeAnswer(response, await wire.read(response))}`);
      requireEventStream(response);
      const generation = generationOf(response);
      const cut = await readAndCut(response, UNITS_BEFORE_CUT);
      const position = `${generation}.${cut.offset}`;
      const what = `the resend with Last-Event-ID: ${position}`;
      // Until the log holds the head, the resend may be told "in progress" (§ 14.6): its Location is asked from the position.
      const from = { [LAST_EVENT_ID_HEADER]: position };
      const resumed = await answerOf(wire, wire.send(id, { headers: from }), what, from);
      if (resumed.response.status !== response.status || isTrueHeader(resumed.response.headers.get(RESTARTED_HEADER))) {
        fail(
          `${what} was answered ${describeAnswer(resumed.response, resumed.body)}${isTrueHeader(resumed.response.headers.get(RESTARTED_HEADER)) ? ', restarted' : ''}, not the rest of the answer`,
        );
      }
      const whole = await answerOf(wire, wire.status(id), `GET of the status URL`);
      const difference = byteDifference(concat(cut.prefix, resumed.body), whole.body);
      if (difference)
        fail(
          `the ${cut.offset} bytes read before the cut and the ${resumed.body.length} of ${what} are not the answer: ${difference}`,
        );
      return `cut after ${cut.offset} of ${whole.body.length} bytes; the resume brought the other ${resumed.body.length}`;
    },
  },
  {
    id: 'past-the-end',
    section: '§ 14.5',
    title: 'A position at or past the end of an ended answer is answered 204, a restart, or 416, as the table says',
    async run(wire) {
      const id = wire.newId();
      const first = await wire.answer(id);
      const generation = generationOf(first.response);
      await answerOf(wire, wire.status(id), 'GET of the status URL'); // the record completed
      const length = first.body.length;
      const checked: string[] = [];
      const range = await read(
        wire,
        wire.send(id, { headers: { [RANGE_HEADER]: `bytes=${length}-`, [GENERATION_HEADER]: String(generation) } }),
      );
      const contentRange = range.response.headers.get('Content-Range');
      if (range.response.status !== 416 || contentRange !== `bytes */${length}`) {
        fail(
          `Range: bytes=${length}- of a ${length}-byte answer was answered ${describeAnswer(range.response, range.body)}, Content-Range ${contentRange ?? 'none'}; expected 416 with bytes */${length}`,
        );
      }
      checked.push(`Range at the end: 416`);
      if (isEventStream(first.response.headers.get('Content-Type'))) {
        const atEnd = await read(wire, wire.send(id, { headers: { [LAST_EVENT_ID_HEADER]: `${generation}.${length}` } }));
        if (atEnd.response.status !== 204 || atEnd.body.length > 0) {
          fail(
            `Last-Event-ID: ${generation}.${length} (the end) was answered ${describeAnswer(atEnd.response, atEnd.body)}, not 204`,
          );
        }
        const past = await read(wire, wire.send(id, { headers: { [LAST_EVENT_ID_HEADER]: `${generation}.${length + 1}` } }));
        const expected = concat(new TextEncoder().encode(restartMarkerText(generation)), first.body);
        const difference = byteDifference(past.body, expected);
        if (
          past.response.status !== first.response.status ||
          !isTrueHeader(past.response.headers.get(RESTARTED_HEADER)) ||
          difference
        ) {
          fail(
            `Last-Event-ID: ${generation}.${length + 1} (past the end) was answered ${describeAnswer(past.response, past.body)}` +
              `${difference ? `: ${difference}` : ''}; expected a restart: ${RESTARTED_HEADER}: true, the restart marker, then the whole answer`,
          );
        }
        checked.push('Last-Event-ID at the end: 204', 'past it: a restart with the whole answer');
      }
      return checked.join('; ');
    },
  },
];
