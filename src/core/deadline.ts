/**
 * `promise`, or a rejection with `timedOut()` if `timeoutMs` passes first. The work behind
 * the promise is not cancelled (it may still land later: callers say why that is safe);
 * the timer never outlives the promise.
 */
export function withDeadline<T>(promise: Promise<T>, timeoutMs: number, timedOut: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), timeoutMs);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
