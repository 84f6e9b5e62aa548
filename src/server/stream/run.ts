import { PROBLEM_JSON } from '../../core/headers.js';
import { LeaseLostError } from '../errors.js';
import type { Reporter } from '../events.js';
import { type StoredResponse, storedAnswer, storedResult } from '../format/stored-response.js';
import { problemResponse } from '../problem.js';
import type { AnswerAhead } from '../run/answer-ahead.js';
import type { WorkOutcome } from '../run/held-run.js';
import type { Holder } from '../run/holder.js';
import type { LogSlice, StreamStore } from '../store/stream-store.js';
import type { UsageReport } from '../usage.js';
import { type CallerPosition, type ProduceContext, type Production, produce } from './producer/produce.js';

/** One turn of the stop watch; the loop ends with the run. */
const STOP_WATCH_MS = 60_000;
/**
 * Why the stop watch ends: the run is over. Given as the reason so that ending it costs
 * no `DOMException` (what `abort()` without one builds, with its stack: the most
 * expensive single step of a one-chunk answer's run).
 */
const RUN_ENDED = Object.freeze({ name: 'RunEnded', message: 'answer-once: the run ended.' });

export interface StreamedRunOptions {
  readonly leaseMs: number;
  readonly flushMs: number;
  readonly flushBytes: number;
  readonly maxResponseBytes: number;
  readonly maxQueuedBytes: number;
  readonly replayHeaders: ReadonlySet<string>;
  readonly report: Reporter;
}

/**
 * One generation run on a log-keeping store (PROTOCOL.md § 14.2, § 14.8): watches for a
 * stop from the moment the intent is held, gives the work a signal that a stop (or a
 * fenced append) aborts, streams the work's response through `produce`, and ends the
 * attempt's body once the record's write is known.
 */
export class StreamedRun {
  readonly #store: StreamStore;
  readonly #key: string;
  readonly #holder: Holder;
  readonly #generation: number;
  readonly #position: CallerPosition | undefined;
  /** A re-run (its intent ran before): its answer may continue the one an earlier generation logged (§ 14.12). */
  readonly #rerun: boolean;
  /** When the claim held now was sent (`undefined` once claimed again): its watch need not look before it. */
  #claimSentAt: number | undefined;
  readonly #options: StreamedRunOptions;
  readonly #stop = new AbortController();
  readonly #work = new AbortController();
  #done: AbortController | undefined;
  #watchTimer: ReturnType<typeof setTimeout> | undefined;
  #production: Extract<Production, { whole: false }> | undefined;
  #renewedAt = 0;

  constructor(
    store: StreamStore,
    key: string,
    holder: Holder,
    generation: number,
    attempt: { readonly position: CallerPosition | undefined; readonly runs: number; readonly claimSentAt?: number },
    options: StreamedRunOptions,
  ) {
    this.#store = store;
    this.#key = key;
    this.#holder = holder;
    this.#generation = generation;
    this.#position = attempt.position;
    this.#rerun = attempt.runs > 1;
    this.#claimSentAt = attempt.claimSentAt;
    this.#options = options;
    // Claimed again after the store lost the record (§ 7.2): the log starts over, the stop
    // watch follows the new token.
    holder.onReclaimed((token, reclaimed) => {
      this.#claimSentAt = undefined;
      this.#production?.reopen(token, reclaimed ?? this.#generation);
      if (this.#done && !this.#done.signal.aborted) this.#watchStop();
    });
    // A stop reaches the holder within a flush window (§ 14.8): an answer done sooner
    // never pays for the watch.
    this.#watchTimer = setTimeout(() => {
      this.#watchTimer = undefined; // not kept for the run's length once it fired
      this.#watchStop();
    }, options.flushMs);
  }

  /** The work's signal: aborted when the lease is lost, a stop comes, or an append is fenced. */
  signal(lease: AbortSignal): AbortSignal {
    if (lease.aborted) this.#work.abort(lease.reason);
    else lease.addEventListener('abort', () => this.#work.abort(lease.reason), { once: true });
    return this.#work.signal;
  }

  /** When an append last renewed the lease (0: none yet), for the heartbeat. */
  readonly renewedAt = (): number => this.#renewedAt;

  get stopped(): boolean {
    return this.#stop.signal.aborted;
  }

  /**
   * Streams `response` through: its answer goes to `ahead` as soon as its head is in (a
   * body all there at once goes as the outcome's value instead); settles with the work's
   * outcome once the body ended. A body that broke before anything went out is answered
   * by `broken` (the 502 problem).
   */
  async outcome(
    response: Response,
    broken: (error: unknown) => WorkOutcome<Response>,
    usage: UsageReport,
    ahead: AnswerAhead<Response>,
  ): Promise<WorkOutcome<Response>> {
    const context: ProduceContext = {
      ...this.#options,
      store: this.#store,
      key: this.#key,
      // Claimed again before the work answered: its answer is the new generation's.
      holder: this.#holder,
      token: this.#holder.token,
      generation: this.#holder.generation ?? this.#generation,
      position: this.#position,
      logged: await this.#logged(),
      stopSignal: this.#stop.signal,
      onStop: () => this.#requestStop(),
      stopAt: () => this.#stopAt(),
      // The same reason as a heartbeat's fenced renew: the work can tell a takeover from a stop.
      onFenced: () => this.#work.abort(new LeaseLostError('answer-once: another worker took this intent over.')),
      onRenewed: () => {
        this.#renewedAt = Date.now();
      },
    };
    const production = await produce(response, context);
    const { delivered } = production;
    if (production.whole) {
      const { produced } = production;
      return produced.ok ? completed(produced.stored, usage, delivered) : broken(produced.error);
    }
    this.#production = production;
    ahead.send(delivered);
    // A callback, not an `await`: a held stream keeps no suspended frame here while its model waits.
    return production.produced.then((produced) =>
      produced.ok
        ? completed(produced.stored, usage, delivered)
        : { kind: 'fail', error: JSON.stringify({ status: 502 }), value: delivered, cause: produced.error },
    );
  }

  /** Stopped before the work answered (it threw on its aborted signal): a 409 `intent-stopped`, kept (§ 14.8). */
  async stoppedOutcome(requestId: string, usage: UsageReport): Promise<WorkOutcome<Response>> {
    const answer = problemResponse('intent-stopped', {
      title: 'answer-once: this intent was stopped before it was answered; it will not run again.',
      requestId,
    });
    const body = new Uint8Array(await answer.clone().arrayBuffer());
    const headers: [string, string][] = [['content-type', PROBLEM_JSON]]; // what problemResponse set
    const stored = storedAnswer(409, headers, body, true);
    return { kind: 'complete', result: storedResult(stored, usage.value), value: answer };
  }

  /** The record's write is known: end the attempt's body, and the stop watch. */
  settle(outcome: WorkOutcome<Response> | undefined, fenced: boolean): void {
    this.dispose();
    this.#production?.settle({ ok: outcome?.kind === 'complete', fenced });
  }

  /** The run ended (settled, or without streaming: a thrown work, a 5xx): stop watching. */
  dispose(): void {
    clearTimeout(this.#watchTimer);
    this.#done?.abort(RUN_ENDED);
  }

  #requestStop(): void {
    if (this.#stop.signal.aborted) return;
    const reason = new DOMException('answer-once: the intent was stopped.', 'AbortError');
    this.#stop.abort(reason);
    this.#work.abort(reason);
  }

  /**
   * What an earlier generation of the intent logged, for a re-run to continue (§ 14.12);
   * none on a first run, or when the store fails (the answer is then its own, as ever).
   */
  async #logged(): Promise<LogSlice | undefined> {
    if (!this.#rerun) return undefined;
    try {
      return (await this.#store.read(this.#key, null)).log ?? undefined;
    } catch (error) {
      this.#options.report({ type: 'store-error', key: this.#key, operation: 'read', error });
      return undefined;
    }
  }

  /** The record's `stopAt`, while this generation still holds it (a store failure keeps the whole answer). */
  async #stopAt(): Promise<number | undefined> {
    try {
      const record = await this.#store.get(this.#key);
      const held = record?.state === 'processing' && record.token === this.#holder.token;
      return held ? record.stopAt : undefined;
    } catch (error) {
      this.#options.report({ type: 'store-error', key: this.#key, operation: 'get', error });
      return undefined;
    }
  }

  /**
   * One turn of the stop watch: waits for a stop, STOP_WATCH_MS, or the run's end, then
   * takes the next turn while the run goes on. Callbacks, not an async loop: a held
   * stream keeps no suspended frame for its watch.
   */
  #watchStop(): void {
    this.#done ??= new AbortController();
    const done = this.#done.signal;
    if (done.aborted || this.#stop.signal.aborted) return;
    const started = Date.now();
    let watching: Promise<boolean>;
    try {
      watching = this.#store.watchStop(this.#key, this.#holder.token, STOP_WATCH_MS, done, this.#claimSentAt);
    } catch (error) {
      watching = Promise.reject(error);
    }
    watching.then(
      (stopped) => {
        if (stopped) this.#requestStop();
        // Back sooner than a turn: not held any more (or the run ended).
        else if (Date.now() - started >= STOP_WATCH_MS / 2) this.#watchStop();
      },
      // Appends still carry a stop.
      (error: unknown) => this.#options.report({ type: 'store-error', key: this.#key, operation: 'watchStop', error }),
    );
  }
}

/** A streamed answer that ended: the record keeps it, with the usage read once the body ended (onFinish). */
function completed(stored: StoredResponse, usage: UsageReport, value: Response): WorkOutcome<Response> {
  return { kind: 'complete', result: storedResult(stored, usage.value), value };
}
