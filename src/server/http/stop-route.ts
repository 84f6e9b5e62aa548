import { LOCATION_HEADER, RETRY_AFTER_HEADER } from '../../core/headers.js';
import { problemResponse } from '../problem.js';
import { storeCall } from '../store/store-call.js';
import { type AnswerContext, statusAnswer, withProtocolHeaders } from './answers.js';
import type { ResolvedHandlerOptions } from './handler-options.js';
import type { RoutedIntent } from './intent.js';
import { answerRecord } from './record-answer.js';
import type { HandlerSetup } from './setup.js';

/**
 * `DELETE <statusPath>/<id>` (PROTOCOL.md § 14.8): asks the generation running the
 * intent to stop, through the store, wherever it runs — at the reader's position when the
 * request names one (`Last-Event-ID: <g>.<N>`), so the stored answer ends where the
 * reader's screen did. 202 "stopping" (held by
 * `Prefer: wait` until the record settles, then answered as the status route does),
 * the status answer of a settled intent, 404 for an unknown one, 501 on a store
 * without logs.
 */
export async function stopRoute(setup: HandlerSetup, request: Request, intent: RoutedIntent): Promise<Response> {
  const { requestId, key, waitMs, position, report, context } = intent;
  const { options, streamStore: store } = setup;
  if (!store) {
    return problemResponse('stop-unsupported', {
      title: 'answer-once: this server’s store keeps no answer logs, so a running intent cannot be stopped.',
      requestId,
    });
  }
  const at =
    position?.by === 'event-id' && position.generation !== undefined
      ? { generation: position.generation, offset: position.offset }
      : undefined;
  const found = await storeCall('stop', key, () => store.stop(key, at), context);
  const answer: AnswerContext = { requestId, waitedSeconds: undefined, statusRoute: true };
  if (found === 'unknown') return statusAnswer(null, answer, options, Date.now());
  if (found === 'settled') {
    // Answered as a status read of it is (a replay whole: a stop's position names no start).
    return answerRecord(setup, report, key, await storeCall('get', key, () => store.get(key), context), answer, undefined);
  }
  report({ type: 'stop-requested', key });
  if (waitMs > 0) {
    const record = await storeCall('wait', key, () => store.wait(key, waitMs, request.signal), context, waitMs);
    const held = { ...answer, waitedSeconds: waitMs / 1000 };
    if (record?.state !== 'processing') return answerRecord(setup, report, key, record, held, undefined);
    return stopping(held, options);
  }
  return stopping(answer, options);
}

function stopping(answer: AnswerContext, options: ResolvedHandlerOptions): Response {
  const location = `${options.statusPath}/${answer.requestId}`;
  const response = Response.json(
    { requestId: answer.requestId, state: 'stopping', location },
    {
      status: 202,
      headers: {
        [LOCATION_HEADER]: location,
        [RETRY_AFTER_HEADER]: String(options.retryAfterSeconds),
        'Cache-Control': 'no-store',
      },
    },
  );
  return withProtocolHeaders(response, answer);
}
