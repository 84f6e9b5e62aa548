import type { AnswerHead } from '../../format/answer-head.js';
import { type StoredResponse, storedAnswer } from '../../format/stored-response.js';

/** How the answer's body ended: what to complete the record with, or a broken stream (502). */
export type AnswerEnd =
  | { readonly ok: true; readonly stored: StoredResponse }
  | { readonly ok: false; readonly error: unknown };

/**
 * What `produce` made of the work's response. `whole`: its body was all there at once
 * (a JSON answer): answer it once the record is written, as any answer. Otherwise it
 * streams: `delivered` goes out now, `produced` settles when the body ended, and
 * `settle` ends the attempt's body once the record's write is known.
 */
export type Production =
  | { readonly whole: true; readonly delivered: Response; readonly produced: AnswerEnd }
  | {
      readonly whole: false;
      readonly delivered: Response;
      readonly produced: Promise<AnswerEnd>;
      settle(outcome: { readonly ok: boolean; readonly fenced: boolean }): void;
      /** The run holds the intent again under `token` and `generation` (its record or log vanished): log anew. */
      reopen(token: string, generation: number): void;
    };

/** The answer ended with `body` (what the record keeps; `undefined` past `maxResponseBytes`). */
export function answered(head: AnswerHead, body: Uint8Array | undefined, stopped: boolean): AnswerEnd {
  return { ok: true, stored: storedAnswer(head.status, head.headers, body, stopped) };
}
