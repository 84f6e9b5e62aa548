/**
 * What a case is: one promise of PROTOCOL.md, checked over HTTP. It resolves (pass, with
 * what it saw) or throws what ./outcome.ts defines (fail, skip).
 */
import type { Answer, SendInit, Wire } from './wire.js';

export interface CheckCase {
  /** A short stable name (`replay`, `resume`…), for `--json` readers. */
  readonly id: string;
  /** The PROTOCOL.md section it checks (`§ 7.3`). */
  readonly section: string;
  /** The promise, as a sentence. */
  readonly title: string;
  /** Runs the case; resolves with a note on what was seen when it passes. */
  run(wire: Wire): Promise<string>;
}

/**
 * The `run` of a case that starts from an answered intent: a new ID sent once (with
 * `init`) and answered in full, then `check` with that ID and its first answer.
 */
export function afterAnswer(
  check: (wire: Wire, id: string, first: Answer) => Promise<string>,
  init: SendInit = {},
): CheckCase['run'] {
  return async (wire) => {
    const id = wire.newId();
    return check(wire, id, await wire.answer(id, init));
  };
}
