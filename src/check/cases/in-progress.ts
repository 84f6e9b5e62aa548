/**
 * § 6.1, § 6.2: a duplicate that arrives while the work runs never runs it again — it is
 * told "in progress" (202, or 409, with a status URL that answers), attached to the live
 * answer, or held until the answer is there.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PREFER_HEADER, PREFERENCE_APPLIED_HEADER } from '../../core/headers.js';
import { byteDifference } from '../bytes.js';
import type { CheckCase } from '../case.js';
import { type AnswerKind, expectSameAnswer, kindOf, locationOf, read } from '../expect.js';
import { fail, skip } from '../outcome.js';
import { type Answer, describeAnswer, type Wire } from '../wire.js';

/**
 * The head start of the first send: the duplicate goes once the first's answer head is in
 * (a streamed answer is then still being produced) or after this long (a buffered answer's
 * work is then running), whichever comes first.
 */
const HEAD_START_MS = 100;

interface Duplicate {
  /** The answer that ran the work. */
  readonly fresh: Answer;
  /** The other one, as it came. */
  readonly duplicate: Answer;
  readonly kind: AnswerKind;
  /** Whether the duplicate is the second send (the one with the extra headers): it reached the server second. */
  readonly inOrder: boolean;
}

/** Sends one new intent twice, the second while the first runs; fails unless exactly one ran the work. */
async function sendTwice(wire: Wire, duplicateHeaders: Record<string, string>): Promise<Duplicate> {
  const id = wire.newId();
  const firstSent = wire.send(id);
  await Promise.race([firstSent.catch(() => undefined), sleep(HEAD_START_MS, undefined, { signal: wire.signal })]);
  const [first, second] = await Promise.all([
    read(wire, firstSent),
    read(wire, wire.send(id, { headers: duplicateHeaders })),
  ]);
  const kinds = [kindOf(first), kindOf(second)];
  if (kinds[0] === 'fresh' && kinds[1] === 'fresh') {
    const same = byteDifference(second.body, first.body) === undefined ? 'the same bytes' : 'different bytes';
    fail(
      `both sends ran the work (two ${first.response.status} answers, ${same}, neither flagged replayed or attached, ` +
        'neither 202): a duplicate during work ran it again',
    );
  }
  const freshAt = kinds.indexOf('fresh');
  if (freshAt === -1) {
    fail(
      `no send got the work's answer: ${describeAnswer(first.response, first.body)} and ${describeAnswer(second.response, second.body)}`,
    );
  }
  const [fresh, duplicate] = freshAt === 0 ? [first, second] : [second, first];
  return { fresh, duplicate, kind: kinds[1 - freshAt]!, inOrder: freshAt === 0 };
}

/** The duplicate's answer once settled: attached or replayed, the fresh answer's bytes. */
async function expectSettledSame(wire: Wire, { fresh, duplicate, kind }: Duplicate): Promise<string> {
  if (kind === 'in-progress') {
    const location = locationOf(duplicate, 'the duplicate');
    const settled = await wire.settled(location);
    const how = expectSameAnswer(settled, fresh, `GET ${location.pathname} (the duplicate's Location)`);
    return `the duplicate was answered ${duplicate.response.status} in progress; its Location ${location.pathname} then ${how} the answer`;
  }
  if (kind === 'other') fail(`the duplicate was answered ${describeAnswer(duplicate.response, duplicate.body)}`);
  return `the duplicate was ${expectSameAnswer(duplicate, fresh, 'the duplicate')} byte for byte`;
}

const NOTHING_IN_PROGRESS =
  'the first answer was complete before the duplicate arrived: nothing was in progress to check ' +
  `(a server whose work takes longer than ${HEAD_START_MS} ms, or streams its answer, shows it)`;

export const inProgressCases: readonly CheckCase[] = [
  {
    id: 'duplicate-in-progress',
    section: '§ 6.1',
    title: 'A duplicate during work does not run it again: 202 with a status URL that answers, or attached',
    async run(wire) {
      const duplicate = await sendTwice(wire, {});
      if (duplicate.kind === 'replayed') skip(NOTHING_IN_PROGRESS);
      return expectSettledSame(wire, duplicate);
    },
  },
  {
    id: 'prefer-wait',
    section: '§ 6.2',
    title: 'A duplicate during work with Prefer: wait is held until the answer is there (or attached)',
    async run(wire) {
      const duplicate = await sendTwice(wire, { [PREFER_HEADER]: `wait=${wire.options.waitSeconds}` });
      if (!duplicate.inOrder) skip('the send with Prefer: wait reached the server first and ran the work: nothing held it');
      const applied = duplicate.duplicate.response.headers.get(PREFERENCE_APPLIED_HEADER);
      if (duplicate.kind === 'replayed' && !applied) skip(NOTHING_IN_PROGRESS);
      if (duplicate.kind === 'in-progress' && !applied) {
        fail(
          `the duplicate was answered ${duplicate.duplicate.response.status} at once, without Preference-Applied: Prefer: wait was not honoured`,
        );
      }
      const seen = await expectSettledSame(wire, duplicate);
      return applied ? `held (Preference-Applied: ${applied}); ${seen}` : seen;
    },
  },
];
