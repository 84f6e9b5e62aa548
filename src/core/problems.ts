/**
 * The problem+json `type` URIs and stable `code` strings that cross the wire
 * (PROTOCOL.md § 9). Clients branch on `code`; humans read `title` and `detail`.
 */
const PROBLEM_BASE = 'https://answer-once.dev/problems/';

const PROBLEM_CODES = [
  /** No `X-Request-Id` / `Idempotency-Key` header on a request that needs one. */
  'missing-request-id',
  /** The key is not 8–128 characters of `[A-Za-z0-9_-]`. */
  'invalid-request-id',
  /** The key was used before with another method, path or body. */
  'request-id-reused',
  /** The stored attempt of this intent failed; resend the same request with the same ID. */
  'intent-failed',
  /** Another attempt of this intent is still running (the IETF draft's 409). */
  'request-in-progress',
  /** The request body is larger than the server accepts. */
  'payload-too-large',
  /** The idempotency store could not be reached; retry with the same ID. */
  'store-unavailable',
  /** The idempotency store refused the operation in a way no retry cures (a server misconfiguration). */
  'store-failed',
  /** The server failed before it could handle the intent (e.g. its auth callback threw); nothing was run. */
  'internal-error',
  /** No intent with this ID is known in the caller's scope. */
  'intent-not-found',
  /** The intent was answered, but its answer was over `maxResponseBytes` and not kept (410). */
  'response-not-replayable',
  /** A method the status route does not answer: only GET, HEAD and DELETE (405, with `Allow`). */
  'method-not-allowed',
  /** The intent was stopped (stop route) before its work answered; it will not run again (409). */
  'intent-stopped',
  /** The server's store keeps no answer logs, so it cannot stop a running intent (501). */
  'stop-unsupported',
  /**
   * The intent's work already ran as many times as the server allows one intent
   * (`maxRuns`, counting retries after a failure and takeovers of a lapsed lease); it will
   * not run again under this ID (409). Final: a new attempt is a new intent.
   */
  'intent-exhausted',
] as const;

export type ProblemCode = (typeof PROBLEM_CODES)[number];

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
