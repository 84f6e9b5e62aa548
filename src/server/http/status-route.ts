import type { AnswerContext } from './answers.js';
import type { RoutedIntent } from './intent.js';
import { answerRecord, waitForRecord } from './record-answer.js';
import type { HandlerSetup } from './setup.js';

/**
 * `GET`/`HEAD <statusPath>/<id>` (PROTOCOL.md § 8): the intent's answer as it stands —
 * a replay, an attach to its live answer, 202 while it runs (held by `Prefer: wait`),
 * its failure, or 404. It never runs anything.
 */
export async function statusRoute(setup: HandlerSetup, request: Request, intent: RoutedIntent): Promise<Response> {
  const { requestId, key, waitMs, position, report } = intent;
  const answer: AnswerContext = { requestId, waitedSeconds: undefined, statusRoute: true };
  let found = await waitForRecord(setup, intent, 0, request.signal, answer);
  if (found instanceof Response) return found;
  let held = answer;
  if (found?.state === 'processing' && found.leaseExpiresAt > Date.now() && waitMs > 0) {
    held = { ...answer, waitedSeconds: waitMs / 1000 };
    found = await waitForRecord(setup, intent, waitMs, request.signal, held);
    if (found instanceof Response) return found;
  }
  return answerRecord(setup, report, key, found, held, position);
}
