/** § 14.5: a cut streamed answer resumes from its position — no byte twice, none missing. */
import { isTrueHeader, LAST_EVENT_ID_HEADER, RESTARTED_HEADER } from '../../core/headers.js';
import { byteDifference, concat } from '../bytes.js';
import type { CheckCase } from '../case.js';
import { answerOf } from '../expect.js';
import { fail } from '../outcome.js';
import { describeAnswer } from '../wire.js';
import { cutStream } from './streamed.js';

/** Events the check reads before it cuts the connection. */
const UNITS_BEFORE_CUT = 2;

export const resumeCases: readonly CheckCase[] = [
  {
    id: 'resume',
    section: '§ 14.5',
    title: 'A cut stream resumed by Last-Event-ID continues with no byte twice and none missing',
    async run(wire) {
      const { id, status, cut, position } = await cutStream(wire, UNITS_BEFORE_CUT);
      const what = `the resend with Last-Event-ID: ${position}`;
      // Until the log holds the head, the resend may be told "in progress" (§ 14.6): its Location is asked from the position.
      const from = { [LAST_EVENT_ID_HEADER]: position };
      const resumed = await answerOf(wire, wire.send(id, { headers: from }), what, from);
      const restarted = isTrueHeader(resumed.response.headers.get(RESTARTED_HEADER));
      if (resumed.response.status !== status || restarted) {
        fail(
          `${what} was answered ${describeAnswer(resumed.response, resumed.body)}${restarted ? ', restarted' : ''}, not the rest of the answer`,
        );
      }
      const whole = await answerOf(wire, wire.status(id), 'GET of the status URL');
      const difference = byteDifference(concat(cut.prefix, resumed.body), whole.body);
      if (difference) {
        fail(
          `the ${cut.offset} bytes read before the cut and the ${resumed.body.length} of ${what} are not the answer: ${difference}`,
        );
      }
      return `cut after ${cut.offset} of ${whole.body.length} bytes; the resume brought the other ${resumed.body.length}`;
    },
  },
];
