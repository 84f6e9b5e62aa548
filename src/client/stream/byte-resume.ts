/**
 * How a resumed body that is not an event stream joins the bytes its reader has
 * (PROTOCOL.md § 14.5, § 14.11), and the small helpers the resumable body shares. Pure
 * but for letting go of a body it will not read.
 *
 * - `range` (a body with a generation): a 206 from the offset it has continues it; a
 *   whole body of the same generation (the `Range` ignored) is read past what it has; a
 *   restart before any byte reached the reader is taken; anything else cannot be joined.
 * - `replay` (no generation: a store without logs): a replay is read past what it has;
 *   a fresh run (not a replay) is taken only before any byte reached the reader.
 */
import { GENERATION_HEADER, isTrueHeader, RESTARTED_HEADER } from '../../core/headers.js';
import { isEventStream, parseContentRange, parseGeneration } from '../../core/stream-protocol.js';

export type BodyMode = 'events' | 'range' | 'replay';

export function bodyModeOf(response: Response): BodyMode {
  if (parseGeneration(response.headers.get(GENERATION_HEADER)) === undefined) return 'replay';
  return isEventStream(response.headers.get('content-type')) ? 'events' : 'range';
}

/** Where a byte body stands: its generation and the bytes of it the reader has. */
export interface BytePosition {
  readonly generation: number | undefined;
  readonly offset: number;
}

export type ByteJoin =
  /** Read `next` from `skip` bytes in (the bytes before them the reader has), as `generation`; `rerun`: the work ran again for it. */
  | { readonly joins: true; readonly generation: number | undefined; readonly skip: number; readonly rerun: boolean }
  /** It cannot be joined (it restarted after bytes were handed on): `generation` is the one it restarted as. */
  | { readonly joins: false; readonly generation: number | undefined; readonly rerun: boolean };

/**
 * How `next` (a resume's answer, status neither 204 nor 416) joins a `mode` body at `at`;
 * `replayed`: `next` says it is a replay (under the client's `replayedHeaders`).
 */
export function joinBytes(mode: 'range' | 'replay', at: BytePosition, next: Response, replayed: boolean): ByteJoin {
  const nextGeneration = parseGeneration(next.headers.get(GENERATION_HEADER));
  if (mode === 'replay') {
    if (at.offset > 0 && !replayed) return { joins: false, generation: nextGeneration, rerun: true };
    return { joins: true, generation: at.generation, skip: at.offset, rerun: !replayed };
  }
  const same = !isTrueHeader(next.headers.get(RESTARTED_HEADER)) && nextGeneration === at.generation;
  const range = next.status === 206 ? parseContentRange(next.headers.get('content-range')) : undefined;
  // 206 from where we are: the body continues.
  if (same && range && 'start' in range && range.start === at.offset)
    return { joins: true, generation: at.generation, skip: 0, rerun: false };
  // The whole body of the same generation (the Range was ignored): skip what we have.
  if (same && next.status !== 206) return { joins: true, generation: at.generation, skip: at.offset, rerun: false };
  // Restarted before any byte reached the reader: nothing to take back.
  if (at.offset === 0 && next.status !== 206) return { joins: true, generation: nextGeneration, skip: 0, rerun: !same };
  return { joins: false, generation: nextGeneration, rerun: !same };
}

export const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    if (ms <= 0) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
