/** § 14.5: positions at and past the end of an ended answer get the table's answers — 416, 204, a restart — never a clean empty body. */
import {
  GENERATION_HEADER,
  isTrueHeader,
  LAST_EVENT_ID_HEADER,
  RANGE_HEADER,
  RESTARTED_HEADER,
} from '../../core/headers.js';
import { formatPosition, restartMarkerText } from '../../core/stream-events.js';
import { isEventStream } from '../../core/stream-protocol.js';
import { byteDifference, concat } from '../bytes.js';
import { afterAnswer, type CheckCase } from '../case.js';
import { answerOf, read } from '../expect.js';
import { fail } from '../outcome.js';
import { type Answer, describeAnswer, type Wire } from '../wire.js';
import { generationOf } from './streamed.js';

/** `Range: bytes=L-` of an ended `L`-byte answer: 416 with `Content-Range: bytes *\/L`. */
async function expectRangeAtEnd(wire: Wire, id: string, generation: number, length: number): Promise<void> {
  const headers = { [RANGE_HEADER]: `bytes=${length}-`, [GENERATION_HEADER]: String(generation) };
  const { response, body } = await read(wire, wire.send(id, { headers }));
  const contentRange = response.headers.get('Content-Range');
  if (response.status !== 416 || contentRange !== `bytes */${length}`) {
    fail(
      `Range: bytes=${length}- of a ${length}-byte answer was answered ${describeAnswer(response, body)}, ` +
        `Content-Range ${contentRange ?? 'none'}; expected 416 with bytes */${length}`,
    );
  }
}

/** `Last-Event-ID` at the end of an ended event stream: 204, no body. */
async function expectEventIdAtEnd(wire: Wire, id: string, generation: number, length: number): Promise<void> {
  const position = formatPosition(generation, length);
  const { response, body } = await read(wire, wire.send(id, { headers: { [LAST_EVENT_ID_HEADER]: position } }));
  if (response.status !== 204 || body.length > 0) {
    fail(`Last-Event-ID: ${position} (the end) was answered ${describeAnswer(response, body)}, not 204`);
  }
}

/** `Last-Event-ID` past the end: a restart — the flag, the restart marker, the whole answer — with the head's status. */
async function expectRestartPastEnd(wire: Wire, id: string, generation: number, first: Answer): Promise<void> {
  const position = formatPosition(generation, first.body.length + 1);
  const { response, body } = await read(wire, wire.send(id, { headers: { [LAST_EVENT_ID_HEADER]: position } }));
  const difference = byteDifference(body, concat(new TextEncoder().encode(restartMarkerText(generation)), first.body));
  if (response.status !== first.response.status || !isTrueHeader(response.headers.get(RESTARTED_HEADER)) || difference) {
    fail(
      `Last-Event-ID: ${position} (past the end) was answered ${describeAnswer(response, body)}${difference ? `: ${difference}` : ''}; ` +
        `expected a restart: ${RESTARTED_HEADER}: true, the restart marker, then the whole answer`,
    );
  }
}

export const pastTheEndCases: readonly CheckCase[] = [
  {
    id: 'past-the-end',
    section: '§ 14.5',
    title: 'A position at or past the end of an ended answer is answered 416, 204 or a restart, as the table says',
    run: afterAnswer(async (wire, id, first) => {
      const generation = generationOf(first.response);
      await answerOf(wire, wire.status(id), 'GET of the status URL'); // so the record has completed
      await expectRangeAtEnd(wire, id, generation, first.body.length);
      if (!isEventStream(first.response.headers.get('Content-Type')))
        return 'Range at the end: 416 (not an event stream: no Last-Event-ID)';
      await expectEventIdAtEnd(wire, id, generation, first.body.length);
      await expectRestartPastEnd(wire, id, generation, first);
      return 'Range at the end: 416; Last-Event-ID at the end: 204; past it: a restart with the whole answer';
    }),
  },
];
