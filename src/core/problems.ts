/**
 * The problem codes that cross the wire (PROTOCOL.md § 9), as one table: for each code
 * the status the server answers it with, the client error class it becomes and what a
 * client does next. The server's problems (`src/server/errors.ts`, `problem.ts`), the
 * client's error classes and guards, the stream's error markers, the AI transport and
 * every retry-or-final decision read it; nothing else lists codes.
 *
 * Adding a code: a row here (the compiler then asks for a scenario that gets it out of
 * the server, in `test/server/problems.test.ts`, and for a class when it names a new
 * one), the place that raises it, its § 9 row (`test/core/problems.test.ts` compares the
 * two), and a spec of the client's error when it is more than the row.
 */
const PROBLEM_BASE = 'https://answer-once.dev/problems/';

/**
 * What a client does after a problem answer, under the same request ID:
 * - `final`: nothing; retrying cannot change the answer;
 * - `new-intent`: nothing; the server will never run this ID again, so a "try again"
 *   is a new intent (a new ID) — `SendController` and the AI transport do that;
 * - `resend`: send the intent's original request again;
 * - `in-progress`: another attempt runs: poll its `Location`, or retry (always);
 * - `retry`: the same request again, when the status is one of `retry.statusCodes`.
 */
export type ProblemNext = 'final' | 'new-intent' | 'resend' | 'in-progress' | 'retry';

/**
 * The client error classes of their own a problem can become, besides the plain
 * `ResponseError` (`src/client/send/problem-error.ts` maps each name to its class).
 */
export type ProblemErrorName = 'IntentFailedError' | 'IntentExhaustedError' | 'RequestIdReusedError';

/** One row of {@link PROBLEMS}. */
export interface Problem {
  /** The HTTP status the server answers the code with. */
  readonly status: number;
  /** What a client does next (see {@link ProblemNext}). */
  readonly next: ProblemNext;
  /** The client error the answer becomes, once no retry is left: a `ResponseError` unless it has a class of its own. */
  readonly error?: ProblemErrorName;
  /** The client reads the code at any status, not only at `status` (a failed attempt answers its own 5xx). */
  readonly anyStatus?: true;
}

export const PROBLEMS = {
  /** No `X-Request-Id` / `Idempotency-Key` header on a request that needs one. */
  'missing-request-id': { status: 400, next: 'final' },
  /** The key is not 8–128 characters of `[A-Za-z0-9_-]`. */
  'invalid-request-id': { status: 400, next: 'final' },
  /** The key was used before with another method, path or body. */
  'request-id-reused': { status: 422, next: 'final', error: 'RequestIdReusedError' },
  /** The stored attempt of this intent failed; resend the same request with the same ID. */
  'intent-failed': { status: 500, next: 'resend', error: 'IntentFailedError', anyStatus: true },
  /** Another attempt of this intent is still running (the IETF draft's 409). */
  'request-in-progress': { status: 409, next: 'in-progress' },
  /** The request body is larger than the server accepts. */
  'payload-too-large': { status: 413, next: 'final' },
  /**
   * The request body broke before its end (the connection closed or reset mid-upload, a
   * malformed chunk): nothing was read as the intent, nothing run or stored, so the same
   * request is sent again under its ID.
   */
  'request-body-incomplete': { status: 400, next: 'resend' },
  /** The idempotency store could not be reached; retry with the same ID. */
  'store-unavailable': { status: 503, next: 'retry' },
  /** The idempotency store refused the operation in a way no retry cures (a server misconfiguration): final. */
  'store-failed': { status: 500, next: 'final' },
  /** The server failed before it could handle the intent (e.g. its auth callback threw); nothing was run. */
  'internal-error': { status: 500, next: 'retry' },
  /** No intent with this ID is known in the caller's scope. */
  'intent-not-found': { status: 404, next: 'resend' },
  /** The intent was answered, but its answer was over `maxResponseBytes` and not kept (410). */
  'response-not-replayable': { status: 410, next: 'final' },
  /** A method the status route does not answer: only GET, HEAD and DELETE (405, with `Allow`). */
  'method-not-allowed': { status: 405, next: 'final' },
  /** The intent was stopped (stop route) before its work answered; it will not run again (409). */
  'intent-stopped': { status: 409, next: 'final' },
  /** The server's store keeps no answer logs, so it cannot stop a running intent (501). */
  'stop-unsupported': { status: 501, next: 'final' },
  /**
   * The intent's work already ran as many times as the server allows one intent
   * (`maxRuns`, counting retries after a failure and takeovers of a lapsed lease); it will
   * not run again under this ID (409). Final: a new attempt is a new intent.
   */
  'intent-exhausted': { status: 409, next: 'new-intent', error: 'IntentExhaustedError' },
} as const satisfies Record<string, Problem>;

export type ProblemCode = keyof typeof PROBLEMS;

/** The codes after which a client sends the intent's original request again. */
export type ResendCode = { [C in ProblemCode]: (typeof PROBLEMS)[C]['next'] extends 'resend' ? C : never }[ProblemCode];

/** An RFC 9457 problem details object as answer-once writes it. */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  /** Stable machine-readable code: one of {@link ProblemCode}. */
  code?: ProblemCode;
  /** The intent the problem is about, when known. */
  requestId?: string;
  [extension: string]: unknown;
}

export function problemType(code: ProblemCode): string {
  return PROBLEM_BASE + code;
}

/**
 * The row of a code as answered: `undefined` for a code not in the table (an app's own),
 * or one answered at another status than its own (then the status says what it is). An
 * error marker that names no status (§ 14.7) is read by its code alone.
 */
export function problemOf(code: unknown, status: number | undefined): Problem | undefined {
  if (typeof code !== 'string' || !Object.hasOwn(PROBLEMS, code)) return undefined;
  const problem: Problem = PROBLEMS[code as ProblemCode];
  return status === undefined || status === problem.status || problem.anyStatus ? problem : undefined;
}

/** Statuses never retried, whatever `retry.statusCodes` says: sending the same request again gets the same answer. */
const FINAL_STATUSES = new Set([400, 401, 403, 404, 413, 422]);

/**
 * What a client does after an error answer with `status` and problem `code` (any
 * server's): the code's row when it has one, else what the status means — a 409 without
 * a code is the IETF draft's "in progress", with another code a real conflict.
 * Retry-or-final is decided here and nowhere else.
 */
export function nextAfter(status: number, code: string | undefined, retryStatuses: readonly number[]): ProblemNext {
  const next =
    problemOf(code, status)?.next ??
    (status === 409 ? (code === undefined ? 'in-progress' : 'final') : FINAL_STATUSES.has(status) ? 'final' : 'retry');
  return next === 'retry' && !retryStatuses.includes(status) ? 'final' : next;
}

/** Whether sending the intent again under its ID may succeed after an answer whose next step is `next`. */
export const isRetryableNext = (next: ProblemNext): boolean => next !== 'final' && next !== 'new-intent';

/** Whether sending the intent again under its ID may succeed after `code` at its own status (an error class's `retryable`). */
export const isRetryableCode = (code: ProblemCode): boolean => isRetryableNext(PROBLEMS[code].next);
