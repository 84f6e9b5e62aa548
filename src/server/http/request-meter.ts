import { isTrueHeader, STOPPED_HEADER } from '../../core/headers.js';
import type { ProblemCode } from '../../core/problems.js';
import { ERROR_EVENT, STOPPED_EVENT } from '../../core/stream-events.js';
import { isEventStream } from '../../core/stream-protocol.js';
import type { AnswerOutcome, EventSubject, IdempotencyEventListener, Reporter } from '../events.js';
import { reporter } from '../events.js';
import { isFailureStatus, storedUsage } from '../format/stored-response.js';
import { problemCodeOf } from '../problem.js';
import { countAvoided } from '../store/avoided.js';
import type { IdempotencyStore } from '../store/store.js';
import type { Usage, UsageReport } from '../usage.js';

/** What a problem answer says became of the request, for the codes that name an outcome. */
const OUTCOME_OF_CODE: Partial<Record<ProblemCode, AnswerOutcome>> = {
  'request-in-progress': 'in_progress',
  'request-id-reused': 'conflict',
  'intent-stopped': 'stopped',
  'intent-exhausted': 'exhausted',
};

/** Which request a {@link RequestMeter} measures. */
interface MeteredRequest {
  /** It named a position it already had (`Last-Event-ID`, `Range`, § 14.5). */
  readonly resumed: boolean;
  /** It is a send of the intent (the protected route), not a status read. */
  readonly send: boolean;
}

/**
 * One request's `answered` event (events.ts): what became of it, when its first byte
 * left, and what its run cost or its answer saved. Made per request only when the app
 * listens (`onEvent`); the request's own events tell it whether the work ran here or was
 * replayed or attached, its answer tells the rest. A send answered the whole answer
 * without a run is a model call avoided only if the store marks it as the intent's
 * first (`markAvoided`, § 7.6): a replay loop, a poll or a resume never adds to it.
 */
export class RequestMeter {
  readonly #listener: IdempotencyEventListener;
  readonly #store: IdempotencyStore;
  readonly #storeTimeoutMs: number;
  readonly #startedAt = performance.now();
  readonly #request: MeteredRequest;
  #subject: EventSubject | undefined;
  #report: Reporter = () => undefined;
  #outcome: AnswerOutcome | undefined;
  /** The key of the answer this request was given without a run (replayed or attached), unless already counted. */
  #answeredKey: string | undefined;
  #reported!: () => void;
  /** The usage of the run this request started, if it started one: what its answer reports it cost. */
  #run: UsageReport | undefined;
  /**
   * Settles once the request's `answered` event went out, or at once for a request that
   * reports none: what the runtime's `waitUntil` keeps, since an attach's event waits on a
   * store read after its body ended.
   */
  readonly reported = new Promise<void>((resolve) => (this.#reported = resolve));

  constructor(listener: IdempotencyEventListener, store: IdempotencyStore, storeTimeoutMs: number, request: MeteredRequest) {
    this.#listener = listener;
    this.#store = store;
    this.#storeTimeoutMs = storeTimeoutMs;
    this.#request = request;
  }

  /** The request's reporter: every event goes on to the app's listener, and tells this meter what happened. */
  reporter(subject: EventSubject): Reporter {
    this.#subject = subject;
    const forward = reporter(this.#listener, subject);
    this.#report = forward;
    const { resumed } = this.#request;
    return (event) => {
      if (event.type === 'acquired') this.#outcome = 'ran';
      else if (event.type === 'stop-requested') this.#outcome = 'stopped';
      else if (event.type === 'replayed' || event.type === 'attached') {
        this.#outcome = resumed ? 'resumed' : event.type;
        // A replay of a marked record counts nothing: no store call to learn that again.
        this.#answeredKey = event.type === 'replayed' && event.counted ? undefined : event.key;
      }
      forward(event);
    };
  }

  /** The run this request started reports its usage through `usage`. */
  running(usage: UsageReport): void {
    this.#run = usage;
  }

  /**
   * `response`, whose end (or its caller leaving) reports the `answered` event. A request
   * that never got a subject (a malformed ID, an app's own answer from `scope`) reports
   * nothing: it was no intent.
   */
  answer(response: Response): Response {
    if (this.#subject === undefined) {
      this.#reported();
      return response;
    }
    const outcome = outcomeOf(response, this.#outcome);
    const source = response.body;
    if (source === null) {
      this.#answered(outcome, performance.now());
      return response;
    }
    const reader = source.getReader();
    const events = isEventStream(response.headers.get('Content-Type'));
    let firstByteAt: number | undefined;
    // The last two chunks: an event stream's last unit (a marker is one short unit) is in them.
    let last: Uint8Array | undefined;
    let beforeLast: Uint8Array | undefined;
    let ended = false;
    // Once: a caller that leaves while a read is pending ends the body (cancel), then that
    // read comes back to a stream already closed.
    const end = (how: AnswerOutcome): void => {
      if (ended) return;
      ended = true;
      this.#answered(how, firstByteAt ?? performance.now());
    };
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const next = await reader.read();
          if (next.done) {
            controller.close();
            end((events && markerOutcome(beforeLast, last)) || outcome);
            return;
          }
          firstByteAt ??= performance.now();
          beforeLast = last;
          last = next.value;
          controller.enqueue(next.value);
        } catch (error) {
          controller.error(error);
          end('failed'); // an aborted body: this reader's answer ended without its end (§ 14.7)
        }
      },
      cancel: (reason) => {
        end(outcome);
        return reader.cancel(reason);
      },
    });
    return new Response(body, response);
  }

  #answered(outcome: AnswerOutcome, firstByteAt: number): void {
    const firstByteMs = firstByteAt - this.#startedAt;
    const key = this.#answeredKey;
    if (key === undefined || !this.#request.send || (outcome !== 'replayed' && outcome !== 'attached')) {
      this.#emit(outcome, firstByteMs);
      return;
    }
    // The intent's first send answered without a run is the call avoided; the marked
    // record (complete by now, an attach's too) carries the usage it avoided.
    const context = { report: this.#report, timeoutMs: this.#storeTimeoutMs };
    void countAvoided(this.#store, key, context).then((record) =>
      this.#emit(outcome, firstByteMs, record ? { usage: storedUsage(record.result) } : undefined),
    );
  }

  /** Reports the `answered` event; `avoided` with the tokens it avoided, when it counts as a call avoided. */
  #emit(outcome: AnswerOutcome, firstByteMs: number, avoided?: { readonly usage: Usage | undefined }): void {
    const usage = avoided ? avoided.usage : this.#run?.value;
    const stepsAvoided = this.#run?.avoided;
    this.#report({
      type: 'answered',
      outcome,
      firstByteMs,
      ...(avoided && { avoided: true }),
      ...(usage && { usage }),
      ...(stepsAvoided && { stepsAvoided }),
    });
    this.#reported();
  }
}

/**
 * What `response` says became of its request, given what its events said (`told`): a
 * problem code that names an outcome, the stopped flag (a stopped answer replayed), a
 * failure status (the run failed, or the answer it got says so), else the events' word;
 * a response no event explained is a 202 or a failure.
 */
function outcomeOf(response: Response, told: AnswerOutcome | undefined): AnswerOutcome {
  const code = problemCodeOf(response);
  const named = code && OUTCOME_OF_CODE[code];
  if (named) return named;
  if (isTrueHeader(response.headers.get(STOPPED_HEADER))) return 'stopped';
  if (isFailureStatus(response.status)) return 'failed';
  if (told) return told;
  return response.status === 202 ? 'in_progress' : 'failed';
}

const decoder = new TextDecoder();
const literal = (text: string): string => text.replaceAll('.', '\\.');

/** The markers as this server writes them (sse-frame.ts), each the last unit of a body. */
const MARKER_OUTCOMES: ReadonlyArray<readonly [RegExp, AnswerOutcome]> = [
  [new RegExp(`(?:^|[\\r\\n])event: ${literal(ERROR_EVENT)}\\ndata: [^\\r\\n]*\\n\\n$`), 'failed'],
  [new RegExp(`(?:^|[\\r\\n])event: ${literal(STOPPED_EVENT)}\\ndata: \\{\\}\\nid: \\d+\\.\\d+\\n\\n$`), 'stopped'],
];

/**
 * The outcome an event stream's last unit names: the error marker (this reader's answer
 * ended without its end, § 14.7) or the stop marker (§ 14.8). Their names are reserved
 * (§ 14.4): only the server writes such a unit.
 */
function markerOutcome(beforeLast: Uint8Array | undefined, last: Uint8Array | undefined): AnswerOutcome | undefined {
  if (last === undefined) return undefined;
  const tail = (beforeLast ? decoder.decode(beforeLast.subarray(-128)) : '') + decoder.decode(last.subarray(-128));
  return MARKER_OUTCOMES.find(([marker]) => marker.test(tail))?.[1];
}
