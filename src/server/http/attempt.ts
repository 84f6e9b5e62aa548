import { RETRY_AFTER_HEADER } from '../../core/headers.js';
import { FingerprintMismatchError } from '../errors.js';
import { captureResponse, isFailureStatus, type StoredFailure, storedResult } from '../format/stored-response.js';
import { AnswerAhead } from '../run/answer-ahead.js';
import { type Claim, claimIntent } from '../run/claim.js';
import { runHeld, type WorkOutcome } from '../run/held-run.js';
import { Holder } from '../run/holder.js';
import { StepJournal } from '../run/step-journal.js';
import { storeCall } from '../store/store-call.js';
import { withoutReservedEvents } from '../stream/reserved-events.js';
import { StreamedRun } from '../stream/run.js';
import { UsageReport } from '../usage.js';
import {
  type AnswerContext,
  exhaustedAnswer,
  failedAnswer,
  inProgressAnswer,
  statusAnswer,
  withProtocolHeaders,
} from './answers.js';
import type { Intent } from './intent.js';
import { answerRecord, waitForRecord } from './record-answer.js';
import { workRequestOf } from './request-body.js';
import type { HandlerSetup } from './setup.js';

/**
 * The attempt path (PROTOCOL.md § 5–§ 7): claims the intent in the store and runs the work
 * under its lease, or answers what the store holds — a replay, an attach to the live
 * answer, 202 while another holder runs it (held by `Prefer: wait`), 422 on another
 * fingerprint, 409 `intent-exhausted` once it ran `maxRuns` times (§ 5.7). What a run does
 * after its answer went out is handed to `setup.keep` (the runtime's `waitUntil`), so the
 * run outlives the request.
 */
export async function protect(setup: HandlerSetup, request: Request, intent: Intent): Promise<Response> {
  const { options, streamStore } = setup;
  const { key, requestId, fingerprint, report, context, position } = intent;
  let waitedSeconds: number | undefined;
  // At most two claims: the first, and one after a wait that ended in a dead or failed
  // holder; the second round answers whatever it finds.
  for (let round = 0; ; round += 1) {
    const claim = await claimIntent(options.store, key, fingerprint, setup.lease, context);
    const answer: AnswerContext = { requestId, waitedSeconds, statusRoute: false };
    if (claim.kind === 'run') return run(setup, request, intent, claim, answer);
    if (claim.kind === 'exhausted') return exhaustedAnswer(answer);
    if (claim.kind === 'mismatch') {
      throw new FingerprintMismatchError(
        'answer-once: this request ID was already used with another method, path or body.',
        { requestId },
      );
    }
    const { record } = claim;
    if (record.state !== 'processing') return answerRecord(setup, report, key, record, answer, position);
    report({ type: 'in-progress', key });
    const waitMs = round === 0 ? intent.waitMs : 0;
    // Without a log there is nothing to attach to: only a wait can change the answer.
    if (!streamStore && waitMs === 0) return inProgressAnswer(answer, options);
    if (waitMs > 0) waitedSeconds = waitMs / 1000;
    const held = { ...answer, waitedSeconds };
    const found = await waitForRecord(setup, intent, waitMs, request.signal, held);
    if (found instanceof Response) return found;
    if (found?.state === 'completed') return answerRecord(setup, report, key, found, held, position);
    if ((found?.state === 'processing' && found.leaseExpiresAt > Date.now()) || round > 0) {
      return inProgressAnswer(held, options);
    }
    // Failed, gone, or its worker died: claim it again (a retry or a takeover).
  }
}

async function run(
  setup: HandlerSetup,
  request: Request,
  intent: Intent,
  claim: Extract<Claim, { kind: 'run' }>,
  answer: AnswerContext,
): Promise<Response> {
  const { options, streamStore, keep, lease: leaseOptions } = setup;
  const { store } = options;
  const { key, requestId, scope, fingerprint, report, context } = intent;
  const { token, generation, runs } = claim;
  // The work's own Request, made here so that a run that outlives its request (a streamed
  // answer) holds neither the caller's Request nor its spent body stream; handed over once
  // and not kept, or the run's closures would hold it (~3.5 KiB per held stream).
  let workRequest: Request | undefined = workRequestOf(request, intent.body);
  // Each part keeps only the options it reads: a held stream keeps them for its whole life.
  const holder = new Holder(store, key, token, generation, {
    fingerprint,
    report,
    leaseMs: leaseOptions.leaseMs,
    storeTimeoutMs: leaseOptions.storeTimeoutMs,
  });
  /** A failed attempt's answer: resend (§ 9), or — the last run `maxRuns` allows — final (§ 5.7). */
  const failOutcome = (failure: StoredFailure, cause: unknown): WorkOutcome<Response> => ({
    kind: 'fail',
    error: JSON.stringify(failure),
    value: claim.last ? exhaustedAnswer(answer) : failedAnswer(failure, answer),
    cause,
  });
  const streamed =
    streamStore && generation !== undefined
      ? new StreamedRun(
          streamStore,
          key,
          holder,
          generation,
          { position: intent.position, runs, claimSentAt: claim.sentAt },
          {
            leaseMs: leaseOptions.leaseMs,
            flushMs: options.flushMs,
            flushBytes: options.flushBytes,
            maxResponseBytes: options.maxResponseBytes,
            maxQueuedBytes: options.maxQueuedBytes,
            replayHeaders: options.replayHeaders,
            report,
          },
        )
      : undefined;
  // What the journal reads of the options: three fields, not a copy of all of them.
  const usage = new UsageReport();
  setup.meter?.running(usage);
  const journalSetup = { maxStepBytes: options.maxStepBytes, storeTimeoutMs: leaseOptions.storeTimeoutMs, report, usage };
  // A streamed answer, or without a log one over `maxResponseBytes`, goes to its caller
  // while it still streams; its outcome is written only once its body ended (§ 7.3, § 14.2).
  const ahead = new AnswerAhead<Response>();
  const running = runHeld<Response>(
    store,
    key,
    token,
    async (lease) => {
      const signal = streamed ? streamed.signal(lease) : lease;
      const journal = new StepJournal(store, key, holder, signal, journalSetup);
      let response: Response;
      const given = workRequest as Request; // the work runs once
      workRequest = undefined;
      try {
        response = await options.handler(given, {
          requestId,
          scope,
          key,
          signal,
          takeover: claim.takeover,
          retry: claim.retry,
          reportUsage: usage.report,
          step: journal.step,
          beginStep: journal.begin,
        });
        if (!(response instanceof Response)) throw new TypeError('answer-once: `handler` must return a Response.');
      } catch (error) {
        if (streamed?.stopped) return streamed.stoppedOutcome(requestId, usage);
        return failOutcome({ status: 500 }, error);
      }
      if (streamed?.stopped) {
        // Stopped before the work answered: a response it returned anyway (it caught the
        // abort) is not the answer; the stop wins (§ 14.8).
        await discardBody(response);
        return streamed.stoppedOutcome(requestId, usage);
      }
      if (isFailureStatus(response.status)) {
        const retryAfter = response.headers.get(RETRY_AFTER_HEADER);
        const failure: StoredFailure = { status: response.status, ...(retryAfter === null ? {} : { retryAfter }) };
        if (response.status >= 500) {
          await discardBody(response);
          return failOutcome(failure, failure);
        }
        try {
          const passedOn = new Response(response.body, response);
          return { kind: 'fail', error: JSON.stringify(failure), value: passedOn, cause: failure };
        } catch (error) {
          return failOutcome(failure, error); // a body already read or locked
        }
      }
      const broken = (error: unknown): WorkOutcome<Response> => failOutcome({ status: 502 }, error);
      // A work that answers after losing its lease is not streamed: the successor's answer is (§ 7.2).
      // A body that cannot be read (locked by the app) is a broken answer, as when buffered.
      if (streamed && !lease.aborted) return streamed.outcome(response, broken, usage, ahead).catch(broken);
      try {
        const captured = await captureResponse(
          withoutReservedEvents(response),
          options.maxResponseBytes,
          options.replayHeaders,
        );
        if (!captured.oversize)
          return { kind: 'complete', result: storedResult(captured.stored, usage.value), value: captured.delivered };
        ahead.send(captured.delivered);
        const end = await captured.ended;
        // A broken stream produced no answer, whatever its size: FAILED, a resend runs again.
        if (!end.ok) return failOutcome({ status: 502 }, end.error);
        return { kind: 'complete', result: storedResult(captured.stored, usage.value), value: captured.delivered };
      } catch (error) {
        // The answer's stream broke (the model connection dropped): not an answer.
        return failOutcome({ status: 502 }, error);
      }
    },
    (reason) => failOutcome({ status: 504 }, reason),
    { ...leaseOptions, fingerprint, runs, report, renewedAt: streamed?.renewedAt, holder },
  );
  const settled = streamed
    ? running.then(
        ({ outcome, write }) => streamed.settle(outcome, write === 'fenced'),
        () => streamed.settle(undefined, false),
      )
    : undefined;
  // What runs on after the caller has its answer (the stream into the log, an oversize
  // answer's record) is handed to the runtime's `waitUntil`, if it has one.
  keep?.(settled ?? running);
  const first = await Promise.race([ahead.answered, running.then(() => undefined)]);
  if (first) return withProtocolHeaders(first, answer);
  await settled;
  return running.then(async ({ outcome, write }) => {
    if (write !== 'fenced') {
      // After a long-poll whose holder failed or died, this run answers the held request (§ 6.2).
      return withProtocolHeaders(outcome.value, answer);
    }
    // A successor holds the intent: answer what a resend would get, never our own result.
    const record = await storeCall('get', key, () => store.get(key), context).catch(() => null);
    if (record === null) return withProtocolHeaders(outcome.value, answer); // and nobody holds it now: ours stands
    await discardBody(outcome.value);
    return statusAnswer(record, answer, options, Date.now());
  });
}

/**
 * Drops a body nobody will read. Cancelling a stream that already errored (the model's
 * connection broke) rejects with that error; it must not escape and leave the intent
 * PROCESSING with no answer until its lease lapses.
 */
async function discardBody(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}
