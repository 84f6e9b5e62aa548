/** § 2: the request ID — which headers carry it, and which IDs are refused. */
import { afterAnswer, type CheckCase } from '../case.js';
import { answerOf, expectProblem, expectSameAnswer, read } from '../expect.js';
import { fail } from '../outcome.js';

/** IDs outside `[A-Za-z0-9_-]{8,128}` (§ 2.3): too short, a character outside the set, too long. */
const MALFORMED_IDS = ['short-7', 'bad.id+chars', 'x'.repeat(129)];

export const idCases: readonly CheckCase[] = [
  {
    id: 'missing-id',
    section: '§ 2.4',
    title: 'A send without an ID is refused: 400 missing-request-id, naming X-Request-Id',
    async run(wire) {
      const answer = await read(wire, wire.send('', { carrier: 'none' }));
      const problem = expectProblem(answer, 400, 'missing-request-id', 'a send without an ID header');
      if (typeof problem.title !== 'string' || !problem.title.includes('X-Request-Id')) {
        fail(`the problem's title ${JSON.stringify(problem.title)} does not name X-Request-Id`);
      }
      return `400 missing-request-id: ${problem.title}`;
    },
  },
  {
    id: 'malformed-id',
    section: '§ 2.4',
    title: 'A malformed ID is refused: 400 invalid-request-id',
    async run(wire) {
      for (const id of MALFORMED_IDS) {
        const answer = await read(wire, wire.send(id));
        expectProblem(answer, 400, 'invalid-request-id', `a send with X-Request-Id ${JSON.stringify(id.slice(0, 20))}`);
      }
      return `400 invalid-request-id for ${MALFORMED_IDS.length} IDs (too short, a "." and "+", 129 characters)`;
    },
  },
  {
    id: 'idempotency-key',
    section: '§ 2.2',
    title: 'An ID sent as Idempotency-Key (an sf-string) is the same intent as in X-Request-Id',
    run: afterAnswer(
      async (wire, id, first) => {
        const again = await answerOf(wire, wire.send(id), 'the send of the same ID in X-Request-Id');
        return `the send in X-Request-Id was ${expectSameAnswer(again, first, 'the send of the same ID in X-Request-Id')}`;
      },
      { carrier: 'idempotency-key' },
    ),
  },
  {
    id: 'both-headers',
    section: '§ 2.2',
    title: 'X-Request-Id beside Idempotency-Key with the same ID is accepted, as one intent',
    run: afterAnswer(
      async (wire, id, first) => {
        const again = await answerOf(wire, wire.send(id, { carrier: 'both' }), 'the second send with both headers');
        return `answered ${first.response.status}; the second send was ${expectSameAnswer(again, first, 'the second send with both headers')}`;
      },
      { carrier: 'both' },
    ),
  },
];
