/**
 * Fetch's null body statuses: a `Response` with one of these must be built with a `null`
 * body (the constructor throws otherwise), and an answer with one carries none.
 */
const NULL_BODY_STATUSES: ReadonlySet<number> = new Set([101, 103, 204, 205, 304]);

/** Whether `status` is one of Fetch's null body statuses (101, 103, 204, 205, 304). */
export function isNullBodyStatus(status: number): boolean {
  return NULL_BODY_STATUSES.has(status);
}
