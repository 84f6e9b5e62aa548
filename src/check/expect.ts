/**
 * What the cases expect of a later answer of an intent: that it says it ran nothing
 * (replayed or attached, § 7.3, § 14.3) and is the first answer byte for byte; an answer
 * "in progress" (§ 6.1) is followed to its end first, as a client would.
 */
import { ATTACHED_HEADER, isTrueHeader, LOCATION_HEADER, PROBLEM_JSON, REPLAYED_HEADER } from '../core/headers.js';
import type { ProblemCode } from '../core/problems.js';
import { byteDifference } from './bytes.js';
import { fail } from './outcome.js';
import { type Answer, describeAnswer, parseJson, type Wire } from './wire.js';

/** What an answer says about the intent. */
export type AnswerKind = 'fresh' | 'replayed' | 'attached' | 'in-progress' | 'other';

/** `answer`'s kind: in progress (202, or 409 `request-in-progress`), replayed, attached, fresh (2xx, no flag), other. */
export function kindOf({ response, body }: Answer): AnswerKind {
  if (response.status === 202) return 'in-progress';
  if (response.status === 409 && parseJson(body)?.code === 'request-in-progress') return 'in-progress';
  if (isTrueHeader(response.headers.get(REPLAYED_HEADER))) return 'replayed';
  if (isTrueHeader(response.headers.get(ATTACHED_HEADER))) return 'attached';
  return response.ok ? 'fresh' : 'other';
}

/** Reads `response` whole. */
export async function read(wire: Wire, response: Response | Promise<Response>): Promise<Answer> {
  const awaited = await response;
  return { response: awaited, body: await wire.read(awaited) };
}

/** The `Location` of an answer in progress, resolved against its request (§ 6.1); fails when it has none. */
export function locationOf(answer: Answer, what: string): URL {
  const location = answer.response.headers.get(LOCATION_HEADER);
  if (!location) fail(`${what} was answered ${answer.response.status} in progress without a Location (§ 6.1)`);
  return new URL(location, answer.response.url);
}

/**
 * `request`'s answer, and when it is in progress, the answer its `Location` gives (asked
 * with `headers`: the request's position, if any) once the intent answers.
 */
export async function answerOf(
  wire: Wire,
  request: Promise<Response>,
  what: string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const answer = await read(wire, request);
  return kindOf(answer) === 'in-progress' ? wire.settled(locationOf(answer, what), headers) : answer;
}

/** Fails unless `again` is `first` again: its status, its bytes, and a flag saying so. Returns the flag's name. */
export function expectSameAnswer(again: Answer, first: Answer, what: string): 'replayed' | 'attached' {
  const kind = kindOf(again);
  if (kind !== 'replayed' && kind !== 'attached') {
    fail(
      `${what} was answered ${describeAnswer(again.response, again.body)}, not the first answer replayed (X-Idempotent-Replayed: true, § 7.3)`,
    );
  }
  if (again.response.status !== first.response.status) {
    fail(`${what} was answered ${again.response.status}; the first answer was ${first.response.status}`);
  }
  const difference = byteDifference(again.body, first.body);
  if (difference) fail(`${what} is not the first answer byte for byte: ${difference}`);
  return kind;
}

/** Fails unless `answer` is the problem `code` with `status` (§ 9); returns its JSON. */
export function expectProblem(
  { response, body }: Answer,
  status: number,
  code: ProblemCode,
  what: string,
): Record<string, unknown> {
  const problem = parseJson(body);
  const type = response.headers.get('Content-Type') ?? '';
  if (response.status !== status || problem?.code !== code || !type.startsWith(PROBLEM_JSON)) {
    fail(`${what} was answered ${describeAnswer(response, body)}, not ${status} ${PROBLEM_JSON} with code "${code}"`);
  }
  if (problem.status !== status) fail(`${what}: the problem's "status" is ${String(problem.status)}, not ${status}`);
  return problem;
}
