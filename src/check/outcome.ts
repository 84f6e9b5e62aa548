/**
 * How a case ends other than by passing: it throws {@link CaseFailed} (the server broke the
 * promise) or {@link CaseSkipped} (the server does not offer what the case needs, e.g. it
 * keeps no answer logs: nothing to check).
 */

/** The server broke the promise: `message` says how. */
export class CaseFailed extends Error {
  override name = 'CaseFailed' as const;
}

/** The case's precondition does not hold on this server: `message` says why. */
export class CaseSkipped extends Error {
  override name = 'CaseSkipped' as const;
}

export function fail(message: string): never {
  throw new CaseFailed(message);
}

export function skip(why: string): never {
  throw new CaseSkipped(why);
}
