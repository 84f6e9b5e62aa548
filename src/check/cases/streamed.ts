/**
 * What the streamed-answer cases share: which answers they apply to (an event stream from
 * a store that keeps answer logs, § 14) and reading the first units of one, then cutting it.
 */
import { GENERATION_HEADER } from '../../core/headers.js';
import { formatPosition } from '../../core/stream-events.js';
import { isEventStream, parseGeneration } from '../../core/stream-protocol.js';
import { concat, eventUnits } from '../bytes.js';
import { fail, skip } from '../outcome.js';
import type { Wire } from '../wire.js';

/** The generation of a streamed answer (§ 14.3); skips when the server keeps no answer logs. */
export function generationOf(response: Response): number {
  const generation = parseGeneration(response.headers.get(GENERATION_HEADER));
  if (generation === undefined) {
    skip(
      `the answer has no ${GENERATION_HEADER}: the server keeps no answer log (§ 14.11), so no position resumes or stops the answer`,
    );
  }
  return generation;
}

/** Skips unless `response` is an event stream. */
function requireEventStream(response: Response): void {
  const type = response.headers.get('Content-Type');
  if (!isEventStream(type)) skip(`the answer is not an event stream (Content-Type: ${type ?? 'none'})`);
}

/** A new intent whose streamed answer was cut after a few events (by {@link cutStream}). */
export interface CutStream {
  readonly id: string;
  /** The answer's status. */
  readonly status: number;
  readonly generation: number;
  readonly cut: Cut;
  /** Where it was cut, as a position (`<g>.<N>`, § 14.1). */
  readonly position: string;
}

/**
 * Sends a new intent and cuts its answer after `count` events; skips unless the answer is
 * an event stream from a server that keeps answer logs.
 */
export async function cutStream(wire: Wire, count: number): Promise<CutStream> {
  const id = wire.newId();
  const response = await wire.start(id);
  requireEventStream(response);
  const generation = generationOf(response);
  const cut = await readAndCut(response, count);
  return { id, status: response.status, generation, cut, position: formatPosition(generation, cut.offset) };
}

/** The first units of an event stream, read up to the end of the last one with a position id. */
interface Cut {
  /** The bytes up to that end. */
  readonly prefix: Uint8Array;
  /** The last position id read: the offset of that end. */
  readonly offset: number;
  /** Whether the body had ended by then. */
  readonly ended: boolean;
}

/**
 * Reads `response`'s body until `count` units with a position id are in (or it ends), then
 * cancels it — the cut a dropped connection makes. Fails when an id is not the offset of
 * its unit's end (§ 14.4).
 */
async function readAndCut(response: Response, count: number): Promise<Cut> {
  if (!response.body) fail(`the answer (${response.status}) has no body`);
  const reader = response.body.getReader();
  let bytes: Uint8Array = new Uint8Array(0);
  let ended = false;
  for (;;) {
    const positioned = eventUnits(bytes).filter((unit) => unit.position);
    if (positioned.length >= count || ended) {
      await reader.cancel();
      const last = positioned.at(-1);
      if (!last?.position) fail(`the answer's ${bytes.length} bytes hold no event with a position id (§ 14.4)`);
      if (last.position.offset !== last.end) {
        fail(
          `the event ending at byte ${last.end} has the id ${last.position.generation}.${last.position.offset} (§ 14.4: the offset after it)`,
        );
      }
      return { prefix: bytes.subarray(0, last.end), offset: last.end, ended };
    }
    const { done, value } = await reader.read();
    if (done) ended = true;
    else bytes = concat(bytes, value);
  }
}
