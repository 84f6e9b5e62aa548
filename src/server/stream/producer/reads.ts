/** Microtask turns a read may take and still count as "already there" (no I/O behind it). */
const READY_TURNS = 8;

/** One read of the work's body, settled: its result, or what it threw. */
export type Read =
  | { readonly ok: true; readonly next: ReadableStreamReadResult<Uint8Array> }
  | { readonly ok: false; readonly error: unknown };

/** `read`, settled: never rejects. */
export async function settled(read: Promise<ReadableStreamReadResult<Uint8Array>>): Promise<Read> {
  try {
    return { ok: true, next: await read };
  } catch (error) {
    return { ok: false, error };
  }
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
