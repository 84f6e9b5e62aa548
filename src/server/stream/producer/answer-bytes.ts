import { stopMarker } from '../../format/sse-frame.js';
import type { LoggedAnswer } from '../logged-answer.js';
import type { AnswerLog } from './answer-log.js';
import { CallerFeed } from './caller-feed.js';
import { Framing } from './framing.js';

/**
 * The path of the work's bytes (PROTOCOL.md § 14.2): framed (`Framing`), then each unit to
 * the attempt that runs the work (`CallerFeed`) and to the record and the log
 * (`AnswerLog`) — none after a successor took over. It also decides the answer's
 * generation: while the body may still continue an earlier generation's logged answer,
 * it is framed in that one and compared with it (§ 14.12); one byte that differs, or a
 * body that ends short, and the answer is the run's own, framed anew in `own`.
 */
export class AnswerBytes {
  readonly caller = new CallerFeed();
  readonly log: AnswerLog;
  readonly framing: Framing;
  readonly #own: number;
  /** The earlier generation's answer while this one may still continue it, or does. */
  #logged: LoggedAnswer | undefined;

  constructor(own: number, sse: boolean, logged: LoggedAnswer | undefined, log: AnswerLog) {
    this.#own = own;
    this.#logged = logged;
    this.log = log;
    this.framing = new Framing(sse, logged?.generation ?? own, logged !== undefined, (unit) => this.#out(unit));
  }

  /** The generation the answer body is framed in and named by: the logged one while it may be continued. */
  get generation(): number {
    return this.#logged?.generation ?? this.#own;
  }

  /** Still comparing with the logged answer: no byte differed and some are not reproduced yet. */
  get comparing(): boolean {
    return this.#logged?.open === true;
  }

  /** The logged answer this one continues: every logged byte came again (once the body streams or ended). */
  get continued(): LoggedAnswer | undefined {
    return this.#logged;
  }

  /** The work's next bytes. */
  write(bytes: Uint8Array): void {
    this.framing.write(bytes);
    const logged = this.#logged;
    if (logged?.reproduced) this.framing.forget();
    else if (logged && !logged.open) this.#ownAnswer();
  }

  /** The body ended: short of the logged answer, the answer is the run's own. Whether it continues the logged one. */
  ended(): boolean {
    if (!this.#logged?.reproduced) this.#ownAnswer();
    return this.#logged !== undefined;
  }

  /** The body ended (or was stopped): what the framers hold out. */
  end(): void {
    this.framing.end();
    this.log.end();
  }

  /** The stop marker (§ 14.8): the attempt's last unit, and the log's, in the log's generation. */
  stop(): void {
    if (!this.framing.sse || this.log.fenced) return;
    const marker = stopMarker(this.generation, this.framing.offset);
    if (this.log.reframes) {
      this.caller.push(marker);
      this.log.writeStop();
    } else {
      this.framing.writeOwn(marker);
    }
  }

  /** The body is not the logged one: the answer is this generation's own, an event stream framed anew in it. */
  #ownAnswer(): void {
    if (!this.#logged) return;
    this.#logged = undefined;
    if (!this.framing.reframes) return;
    this.caller.restart();
    this.log.restart();
    this.framing.reframe(this.#own);
  }

  #out(unit: Uint8Array): void {
    if (this.log.fenced) return; // never a zombie's byte after the successor took over
    this.#logged?.compare(unit);
    this.caller.push(unit);
    this.log.write(unit);
  }
}
