import type { Reporter } from '../events.js';
import { storedUsage } from '../format/stored-response.js';
import { isExhausted } from '../run/bound.js';
import type { IdempotencyRecord } from '../store/store.js';
import { storeCall } from '../store/store-call.js';
import { type AnswerContext, replayAnswer, statusAnswer } from './answers.js';
import type { RoutedIntent } from './intent.js';
import { attachToLog } from './log-answer.js';
import type { RequestedPosition } from './position.js';
import type { HandlerSetup } from './setup.js';

/**
 * The answer to what the store holds for `key`: a replay of a completed record (from the
 * request's position, § 14.5), else the status answer (202, failed, exhausted, 404…).
 */
export function answerRecord(
  setup: HandlerSetup,
  report: Reporter,
  key: string,
  record: IdempotencyRecord | null,
  answer: AnswerContext,
  position: RequestedPosition | undefined,
): Response {
  if (record?.state === 'completed' && !isExhausted(record)) {
    if (setup.options.onEvent) {
      // The tokens this replay avoided, for a listener (parsed only when someone listens).
      const usage = storedUsage(record.result);
      report({ type: 'replayed', key, ...(usage === undefined ? {} : { usage }), ...(record.avoided && { counted: true }) });
    }
    return replayAnswer(record, answer, position);
  }
  return statusAnswer(record, answer, setup.options, Date.now());
}

/**
 * The one wait for an intent's record, with a log or without: with answer logs, an attach
 * to its live answer once its head is logged (PROTOCOL.md § 14.6), waiting up to `waitMs`
 * for it; without, the record once it settles within `waitMs` (§ 6.2). Else the record as
 * the last read found it (`waitMs` 0: one read, no wait).
 */
export async function waitForRecord(
  setup: HandlerSetup,
  intent: RoutedIntent,
  waitMs: number,
  signal: AbortSignal,
  answer: AnswerContext,
): Promise<Response | IdempotencyRecord | null> {
  const { key, position, report, context } = intent;
  const { streamStore, options } = setup;
  const { store } = options;
  if (!streamStore) {
    if (waitMs === 0) return storeCall('get', key, () => store.get(key), context);
    return storeCall('wait', key, () => store.wait(key, waitMs, signal), context, waitMs);
  }
  const snapshot = await storeCall('read', key, () => streamStore.read(key, null, { waitMs, signal }), context, waitMs);
  const attached = attachToLog(streamStore, key, snapshot, position, answer, options.leaseMs);
  if (!attached) return snapshot.record;
  report({ type: 'attached', key });
  return attached;
}
