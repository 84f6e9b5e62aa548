/** § 6, § 7.3, § 8: an answered intent is answered again from the store, and only to the same request. */
import { REQUEST_ID_HEADER } from '../../core/headers.js';
import { afterAnswer, type CheckCase } from '../case.js';
import { answerOf, expectProblem, expectSameAnswer, read } from '../expect.js';
import { fail } from '../outcome.js';

export const replayCases: readonly CheckCase[] = [
  {
    id: 'replay',
    section: '§ 7.3',
    title: 'A duplicate send replays the first answer byte for byte, flagged X-Idempotent-Replayed',
    run: afterAnswer(async (wire, id, first) => {
      const again = await answerOf(wire, wire.send(id), 'the duplicate send');
      const kind = expectSameAnswer(again, first, 'the duplicate send');
      const echoed = again.response.headers.get(REQUEST_ID_HEADER);
      if (echoed !== id) fail(`the replay's X-Request-Id is ${JSON.stringify(echoed)}, not the intent's ID ${id}`);
      return `${again.response.status}, ${again.body.length} bytes ${kind} byte for byte`;
    }),
  },
  {
    id: 'other-body',
    section: '§ 6',
    title: 'The same ID with another body is refused (422 request-id-reused) and changes nothing',
    run: afterAnswer(async (wire, id, first) => {
      const reused = await read(wire, wire.send(id, { body: wire.options.otherBody }));
      expectProblem(reused, 422, 'request-id-reused', 'the send of the same ID with another body');
      const again = await answerOf(wire, wire.send(id), 'the send with the first body after the 422');
      expectSameAnswer(again, first, 'the send with the first body after the 422');
      return '422 request-id-reused; the first answer still replays';
    }),
  },
  {
    id: 'status-route',
    section: '§ 8',
    title: 'The status route replays an answered intent and answers 404 for an unknown one',
    run: afterAnswer(async (wire, id, first) => {
      const url = wire.statusUrl(id);
      const again = await answerOf(wire, wire.status(url), `GET ${url.pathname}`);
      const kind = expectSameAnswer(again, first, `GET ${url.pathname}`);
      const unknown = wire.statusUrl(wire.newId());
      expectProblem(await read(wire, wire.status(unknown)), 404, 'intent-not-found', `GET ${unknown.pathname} (never sent)`);
      return `${kind}; an unknown ID: 404 intent-not-found`;
    }),
  },
];
