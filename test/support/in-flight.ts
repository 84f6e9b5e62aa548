/** Requests a stub `fetch` has not answered yet, held as a real `fetch` holds the request it is sending. */
const inFlight = new Set<Request>();

/**
 * Calls `then` with the abort reason once `request`'s signal aborts (at once when it
 * already has), holding `request` until then. A stub `fetch` that waits for an abort must:
 * a `Request` made from another's signal (`new Request(input, init)`, `request.clone()`)
 * follows that signal only while something holds it, so a stub that lets it go never
 * sees the abort once the garbage collector has run.
 */
export function whenAborted(request: Request, then: (reason: unknown) => void): void {
  const { signal } = request;
  if (signal.aborted) {
    then(signal.reason);
    return;
  }
  inFlight.add(request);
  signal.addEventListener(
    'abort',
    () => {
      inFlight.delete(request);
      then(signal.reason);
    },
    { once: true },
  );
}

/** A `fetch` answer that never comes: it rejects, as a real one does, only when `request` is aborted. */
export const untilAborted = (request: Request): Promise<never> => new Promise((_, reject) => whenAborted(request, reject));
