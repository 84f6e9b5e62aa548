/** Microtask turns a read may take and still count as "already there" (no I/O behind it). */
const READY_TURNS = 8;

/** One read of the work's body, settled: its result, or what it threw. */
export type Read =
  | { readonly ok: true; readonly next: ReadableStreamReadResult<Uint8Array> }
  | { readonly ok: false; readonly error: unknown };

const fulfilled = (next: ReadableStreamReadResult<Uint8Array>): Read => ({ ok: true, next });
const rejected = (error: unknown): Read => ({ ok: false, error });

/** `read`, settled: never rejects (one reaction per read, no frame of its own: this runs per chunk). */
export function settled(read: Promise<ReadableStreamReadResult<Uint8Array>>): Promise<Read> {
  return read.then(fulfilled, rejected);
}

/** `read`'s outcome if it settles within a few microtask turns (no I/O behind it), else the promise of it. */
export async function ready(
  read: Promise<ReadableStreamReadResult<Uint8Array>>,
): Promise<{ now: Read } | { later: Promise<Read> }> {
  let now: Read | undefined;
  const later = read.then(
    (next): Read => (now = { ok: true, next }),
    (error: unknown): Read => (now = { ok: false, error }),
  );
  for (let turn = 0; turn < READY_TURNS && now === undefined; turn += 1) await undefined;
  return now ? { now } : { later };
}
