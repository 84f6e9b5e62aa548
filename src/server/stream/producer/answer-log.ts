import { ByteRuns } from '../../format/body.js';
import { stopMarker } from '../../format/sse-frame.js';
import type { Holder } from '../../run/holder.js';
import { EventFramer } from '../event-framer.js';
import { type BatcherContext, LogBatcher } from '../log-batcher.js';
import type { LoggedAnswer } from '../logged-answer.js';
import type { AnswerEnd } from './production.js';

/** What the log side needs: the batcher's context (without its handlers), the run's claim and own generation. */
export interface AnswerLogContext extends Omit<BatcherContext, 'onLost' | 'onFenced' | 'token'> {
  /**
   * The run's claim. An append that finds the record gone claims it again through it
   * (§ 7.2); a claim made elsewhere (a heartbeat's) reopens the log through `reopen`.
   */
  readonly holder: Holder;
  /** The run's own generation. */
  readonly generation: number;
  readonly maxResponseBytes: number;
}

/**
 * Where the answer's units go besides the caller: kept whole for the record (up to
 * `maxResponseBytes`) and, once the answer streams, appended to the log in batches
 * (`LogBatcher`). When the record or its log vanished and the run holds the intent again,
 * the log starts over (`reopen`), re-framed in the new generation. A fenced append (a
 * successor holds the intent) stops it for good: `fenced`, and `onFenced` is told.
 */
export class AnswerLog {
  readonly #context: AnswerLogContext;
  readonly #head: string;
  readonly #sse: boolean;
  readonly #onFenced: () => void;
  /** The record's copy; `undefined` once past `maxResponseBytes`. */
  #kept: ByteRuns | undefined = new ByteRuns();
  #batcher: LogBatcher | undefined;
  /** After a claim in a new generation (event streams): re-frames the units in the log's generation. */
  #relog: EventFramer | undefined;
  /** The logged answer this one continues (§ 14.12): its log is appended to, from its length. */
  #continued: LoggedAnswer | undefined;
  #fenced = false;
  /** The log's generation: the answer's, until the run claims a vanished record again under a new one. */
  generation = 0;

  constructor(context: AnswerLogContext, head: string, sse: boolean, onFenced: () => void) {
    this.#context = context;
    this.#head = head;
    this.#sse = sse;
    this.#onFenced = onFenced;
  }

  /** A successor took the intent over: no byte more goes anywhere. */
  get fenced(): boolean {
    return this.#fenced;
  }

  /** The record gets the answer (it is within `maxResponseBytes`). */
  get keeps(): boolean {
    return this.#kept !== undefined;
  }

  /** The log re-frames what the caller gets: its generation is not the caller's. */
  get reframes(): boolean {
    return this.#relog !== undefined;
  }

  /** The next unit of the answer. */
  write(unit: Uint8Array): void {
    if (this.#relog) this.#relog.write(unit);
    else this.#keep(unit);
  }

  /** What the record gets so far, joined; `undefined` past `maxResponseBytes`. */
  record(): Uint8Array | undefined {
    return this.#kept?.join();
  }

  /** Drops what was kept: the answer is framed anew. */
  restart(): void {
    this.#kept = new ByteRuns();
  }

  /**
   * The answer streams in `generation` under `token`: `first` (what was produced before,
   * past a continued answer's logged bytes) is appended, and all that follows. A
   * continuation's first append goes at once: the readers of the logged answer wait for it.
   */
  open(
    token: string,
    generation: number,
    continued: LoggedAnswer | undefined,
    first: Uint8Array | undefined,
    since: number,
  ): void {
    this.generation = generation;
    this.#continued = continued;
    const batcher = this.#logFor(token, since, continued?.length);
    this.#batcher = batcher;
    const unlogged = continued ? first?.subarray(continued.length) : first;
    if (unlogged && unlogged.byteLength > 0) batcher.push(unlogged);
    if (continued) batcher.now();
    else batcher.schedule();
  }

  /**
   * The record (or only its log) vanished and the run holds the intent again under
   * `token`: the log starts over with what was kept, re-framed when the generation is new,
   * so readers get the whole answer (a restart marker first) and the record what they get.
   * An answer past `maxResponseBytes` cannot start over: it is no longer logged.
   */
  reopen(token: string, reclaimed: number): void {
    this.#batcher?.cancel();
    this.#batcher = undefined;
    if (this.#fenced || !this.#kept) return;
    const sofar = this.#kept.join();
    this.#kept = new ByteRuns();
    if (reclaimed !== this.generation) this.#continued = undefined; // a new record: nothing to continue
    const batcher = this.#logFor(token, Date.now());
    this.#batcher = batcher;
    if (this.#sse && reclaimed !== this.generation) {
      this.#relog?.end();
      this.#relog = new EventFramer(reclaimed, (unit) => this.#keep(unit));
      this.#relog.write(sofar);
    } else {
      this.#keep(sofar);
    }
    this.generation = reclaimed;
    batcher.schedule();
  }

  /** The stop marker as the log's last unit, when the log re-frames in its own generation. */
  writeStop(): void {
    this.#relog?.writeOwn(stopMarker(this.generation, this.#relog.offset));
  }

  /** The body ended: an unterminated last event is dropped. */
  end(): void {
    this.#relog?.end();
  }

  /** Readers get every byte the caller got before the error marker. */
  async drain(): Promise<void> {
    await this.#batcher?.drain(true);
  }

  /** The answer is known: readers finish from the log when it is not replayable, so its last batch goes there first. */
  async finish(outcome: AnswerEnd): Promise<AnswerEnd> {
    await this.#batcher?.drain(this.#kept === undefined);
    // A continuation whose first append never landed is not one: the record would name the wrong generation.
    if (this.#continued && this.#batcher?.logged === false) {
      return { ok: false, error: new Error('answer-once: the continued answer could not be logged.') };
    }
    return outcome;
  }

  /** No more batches. */
  cancel(): void {
    this.#batcher?.cancel();
  }

  #keep(unit: Uint8Array): void {
    const kept = this.#kept;
    if (kept) {
      if (kept.byteLength + unit.byteLength <= this.#context.maxResponseBytes) kept.push(unit);
      else {
        this.#kept = undefined;
        if (this.#batcher) this.#batcher.retainBytes = this.#context.maxResponseBytes;
      }
    }
    this.#batcher?.push(unit);
  }

  #fence(): void {
    this.#fenced = true;
    this.#onFenced();
  }

  /**
   * The log under `token`, from `offset` when it continues an earlier generation's: its
   * appends answered fenced, gone or offset are judged against the claim as it is then.
   */
  #logFor(token: string, since: number, offset = 0): LogBatcher {
    const { holder } = this.#context;
    const { store, key, flushMs, flushBytes, leaseMs, report, onStop, onRenewed } = this.#context;
    const continued = this.#continued;
    const opened: LogBatcher = new LogBatcher(
      {
        store,
        key,
        flushMs,
        flushBytes,
        leaseMs,
        report,
        onStop,
        onRenewed,
        token,
        // A batcher of an older claim (replaced since, or while a claim is in flight) is not fenced: the run still holds it.
        onFenced: () => void holder.settled().then(() => holder.token === token && this.#fence()),
        onLost: (what) => {
          if (what === 'record') {
            holder.reclaim('append', token).then(
              (held) => held || this.#fence(),
              (error: unknown) => report({ type: 'store-error', key, operation: 'acquire', error }),
            );
          } else if (holder.token === token) {
            // The store did not take the continuation (its log changed, or it does not
            // continue answers): the answer is this generation's own, as a reopened one.
            const refused = this.#continued !== undefined && !opened.logged;
            if (refused) this.#continued = undefined;
            this.reopen(token, refused ? (holder.generation ?? this.#context.generation) : this.generation);
          }
        },
      },
      this.#head,
      since,
      continued && { generation: continued.generation, offset },
    );
    if (!this.#kept) opened.retainBytes = this.#context.maxResponseBytes;
    return opened;
  }
}
