/**
 * The SSE events answer-once itself writes into streamed answers (PROTOCOL.md § 14),
 * and the position format of their ids — shared by the server that writes them and the
 * client that reads them.
 */

/** The answer starts again with a new generation: drop what was shown of it (§ 14.5). */
export const RESTART_EVENT = 'answer-once.restart';

/** This reader's answer ends here without its end: resend the same request (§ 14.7). */
export const ERROR_EVENT = 'answer-once.error';

/** The last event of an answer stopped through the stop route (§ 14.8). */
export const STOPPED_EVENT = 'answer-once.stopped';

/**
 * The generation a restart marker's data names (`{"generation":G}`, § 14.5), or `undefined`
 * when it names none (not JSON, no positive whole number): such an event is no marker.
 */
export function restartGeneration(data: string): number | undefined {
  try {
    // Not JSON, or `null`: throws; no number in `generation`: NaN.
    const generation = Number(JSON.parse(data).generation);
    return Number.isSafeInteger(generation) && generation > 0 ? generation : undefined;
  } catch {
    return undefined;
  }
}

/** A position's wire form, `<generation>.<offset>` (§ 14.1). */
export function formatPosition(generation: number, offset: number): string {
  return `${generation}.${offset}`;
}
