/** § 3.3: an ID is an intent only in its own scope; another identity never reads or stops it. */
import { ATTACHED_HEADER, isTrueHeader, REPLAYED_HEADER } from '../../core/headers.js';
import type { CheckCase } from '../case.js';
import { answerOf, expectProblem, expectSameAnswer, read } from '../expect.js';
import { fail, skip } from '../outcome.js';
import { describeAnswer } from '../wire.js';

export const scopeCases: readonly CheckCase[] = [
  {
    id: 'other-scope',
    section: '§ 3.3',
    title: 'Another identity cannot read or stop an intent, and its send of the same ID is its own',
    async run(wire) {
      if (!wire.options.otherHeaders) skip('needs a second identity: give its credentials with --other-header');
      const id = wire.newId();
      const first = await wire.answer(id);
      const url = wire.statusUrl(id);
      expectProblem(
        await read(wire, wire.status(url, { asOther: true })),
        404,
        'intent-not-found',
        `another identity's GET ${url.pathname}`,
      );
      const stop = await read(wire, wire.status(url, { method: 'DELETE', asOther: true }));
      expectProblem(stop, 404, 'intent-not-found', `another identity's DELETE ${url.pathname}`);
      const theirs = await read(wire, wire.send(id, { asOther: true }));
      const flag = [REPLAYED_HEADER, ATTACHED_HEADER].find((name) => isTrueHeader(theirs.response.headers.get(name)));
      if (flag) fail(`another identity's send of the same ID got the first identity's answer (${flag}: true)`);
      if (!theirs.response.ok)
        fail(
          `another identity's send of the same ID was answered ${describeAnswer(theirs.response, theirs.body)}, not run as its own intent (are the --other-header credentials right?)`,
        );
      const again = await answerOf(wire, wire.send(id), "the first identity's resend");
      expectSameAnswer(again, first, "the first identity's resend");
      return `another identity: GET and DELETE 404, its send ran as its own intent; the first identity's answer still replays`;
    },
  },
];
