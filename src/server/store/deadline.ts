/**
 * `promise`, or a rejection with `timedOut()` if `timeoutMs` passes first. The work behind
 * the promise is not cancelled (it may still land later: callers say why that is safe);
 * the timer never outlives the promise.
 */
export function withDeadline<T>(promise: Promise<T>, timeoutMs: number, timedOut: () => Error): Promise<T> {
  // One promise and one timer, no race: this wraps every store call of every request.
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(timedOut()), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * Turns a deadline in the store's clock into this process's: `storeNow` was read by the
 * same script or statement, so `deadline - storeNow` is the time left, whatever the two
 * clocks say. `receivedAt` is when this process had the reply.
 */
export function toLocalDeadline(deadline: number, storeNow: number, receivedAt: number): number {
  return receivedAt + (deadline - storeNow);
}
