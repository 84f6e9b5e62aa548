import type { AnswerContext } from './answers.js';
import { appliedWaitMs, type HandlerSetup, scopeOf, subjectOf } from './intent.js';
import { encodeKey } from '../store/key.js';
import { readPosition } from './position.js';
import { answerRecord, attachLive } from './record-answer.js';
import { storeCall } from '../store/store-call.js';
import type { IdempotencyRecord } from '../store/store.js';

/**
 * `GET`/`HEAD <statusPath>/<id>` (PROTOCOL.md § 8): the intent's answer as it stands —
 * a replay, an attach to its live answer, 202 while it runs (held by `Prefer: wait`),
 * its failure, or 404. It never runs anything.
 */
export async function statusRoute(setup: HandlerSetup, request: Request, requestId: string): Promise<Response> {
  const { options, streamStore } = setup;
  const { store } = options;
  const scope = await scopeOf(request, requestId, options);
  if (scope instanceof Response) return scope;
  const key = encodeKey(scope, requestId, options.keyPrefix);
  const { report, context } = subjectOf(requestId, scope, options, setup.meter);
  const waitMs = appliedWaitMs(request, options);
  const position = readPosition(request.headers);
  const answer: AnswerContext = { requestId, waitedSeconds: undefined, statusRoute: true };
  let record: IdempotencyRecord | null;
  if (streamStore) {
    const live = await attachLive({ ...setup, streamStore }, key, position, 0, request.signal, answer, report, context);
    if (live instanceof Response) return live;
    record = live;
  } else {
    record = await storeCall('get', key, () => store.get(key), context);
  }
  let waited = answer;
  if (record?.state === 'processing' && record.leaseExpiresAt > Date.now() && waitMs > 0) {
    waited = { ...answer, waitedSeconds: waitMs / 1000 };
    if (streamStore) {
      const live = await attachLive(
        { ...setup, streamStore },
        key,
        position,
        waitMs,
        request.signal,
        waited,
        report,
        context,
      );
      if (live instanceof Response) return live;
      record = live;
    } else {
      record = await storeCall('wait', key, () => store.wait(key, waitMs, request.signal), context, waitMs);
    }
  }
  return answerRecord(setup, report, key, record, waited, position);
}
