/**
 * The page's "network trouble" switch, applied by the server to the NEXT chat request
 * only (then it resets to `none`), so a visitor sees one fault and its recovery.
 *
 * - `lose`: the work runs and its answer is stored, then the server drops the
 *   connection instead of answering — the client retries with the same ID and gets
 *   the stored answer replayed.
 * - `cut`: the answer starts streaming, and after a few tokens the server destroys the
 *   socket — the client reconnects with the same ID and the last event's id, and the
 *   text carries on from the next token.
 * - `503`: the server answers 503 + `Retry-After` before running anything — the
 *   client retries with the same ID and the model runs once.
 * - `slow`: the model thinks past the gateway's timeout (2 s or more beyond it); the
 *   gateway answers 504 while the work carries on — the client retries, learns the
 *   intent is still running (202) and long-polls until that one run streams.
 */
const TROUBLE_MODES = ['none', 'lose', 'cut', '503', 'slow'] as const;

export type TroubleMode = (typeof TROUBLE_MODES)[number];

export function isTroubleMode(value: unknown): value is TroubleMode {
  return typeof value === 'string' && (TROUBLE_MODES as readonly string[]).includes(value);
}

export class TroubleSwitch {
  #next: TroubleMode = 'none';

  /** The fault armed for the next chat request. */
  get next(): TroubleMode {
    return this.#next;
  }

  arm(mode: TroubleMode): void {
    this.#next = mode;
  }

  /** Returns the armed fault and disarms it: each fault hits exactly one request. */
  take(): TroubleMode {
    const mode = this.#next;
    this.#next = 'none';
    return mode;
  }
}
