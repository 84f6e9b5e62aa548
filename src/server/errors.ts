import { RETRY_AFTER_HEADER } from '../core/headers.js';
import { PROBLEMS, type ProblemCode } from '../core/problems.js';
import { problemResponse } from './problem.js';

/** Marks every {@link IdempotencyError}, across copies of the module (ESM and CJS). */
const BRAND = Symbol.for('answer-once/server:IdempotencyError');

/**
 * The base of every error `answer-once/server` throws. Each one knows the problem+json
 * answer it stands for, so the HTTP layer never invents status codes of its own.
 */
export abstract class IdempotencyError extends Error {
  override name: string = 'IdempotencyError';
  /** Brand read by {@link isIdempotencyError}. */
  readonly [BRAND] = true;
  /** The stable code that crosses the wire (PROTOCOL.md § 9). */
  abstract readonly code: ProblemCode;
  /** The HTTP status of the problem this error becomes. */
  abstract readonly status: number;
  /** The intent this error is about, when known. */
  readonly requestId: string | undefined;

  constructor(message: string, options?: { cause?: unknown; requestId?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.requestId = options?.requestId;
  }

  /** Extra headers of the problem answer. */
  protected headers(): HeadersInit {
    return {};
  }

  /** This error as an RFC 9457 problem+json `Response`. */
  getResponse(): Response {
    return problemResponse(this.code, {
      status: this.status,
      title: this.message,
      ...(this.requestId === undefined ? {} : { requestId: this.requestId }),
      headers: this.headers(),
    });
  }
}

/** The names of every class below: {@link isIdempotencyError} also holds for an error from another copy of the module. */
const NAMES = new Set<string>();

/**
 * The constructor of one problem class, typed with its literal name, code and status. The
 * status is a parameter of its own, filled in from the table where `problem()` is
 * called, so the published types carry the literal (`400`) and never name `PROBLEMS`,
 * which no entry exports: a consumer's declarations could not name it.
 */
type ProblemClass<N extends string, C extends ProblemCode, S extends number> = new (
  message: string,
  options?: { cause?: unknown; requestId?: string },
) => IdempotencyError & { name: N; readonly code: C; readonly status: S };

/**
 * The base of one problem class: its name and the stable code it crosses the wire with;
 * its HTTP status is the code's (`src/core/problems.ts`). Each is typed as the literal
 * (so `error.code` narrows).
 */
function problem<const N extends string, const C extends ProblemCode>(
  name: N,
  code: C,
): ProblemClass<N, C, (typeof PROBLEMS)[C]['status']> {
  NAMES.add(name);
  return class extends IdempotencyError {
    override name: N = name;
    readonly code: C = code;
    readonly status = PROBLEMS[code].status;
  };
}

/** Neither `X-Request-Id` nor `Idempotency-Key` was sent. */
export class MissingRequestIdError extends problem('MissingRequestIdError', 'missing-request-id') {}

/** The request ID is not 8–128 characters of `[A-Za-z0-9_-]`. */
export class InvalidRequestIdError extends problem('InvalidRequestIdError', 'invalid-request-id') {}

/**
 * The request ID was used before with another method, path or body (or, for `runOnce`,
 * another `fingerprint`): nothing runs, nothing is replayed.
 */
export class FingerprintMismatchError extends problem('FingerprintMismatchError', 'request-id-reused') {}

/** The request body is larger than `maxBodyBytes`. */
export class PayloadTooLargeError extends problem('PayloadTooLargeError', 'payload-too-large') {}

/**
 * The request body broke before its end: the connection closed or reset mid-upload, or
 * the runtime could not read it. Nothing was run or stored; the same request may be sent
 * again. The problem's `detail` says how far the body got; `cause` is the read's error.
 */
export class RequestBodyIncompleteError extends problem('RequestBodyIncompleteError', 'request-body-incomplete') {
  override getResponse(): Response {
    return problemResponse(this.code, {
      title: 'answer-once: the request body did not arrive whole; nothing was run.',
      detail: this.message,
      ...(this.requestId === undefined ? {} : { requestId: this.requestId }),
    });
  }
}

/**
 * The store could not be reached, did not answer within `storeTimeoutMs`, or is
 * briefly unable to serve (Redis down, LOADING, a failover, a memory store full of
 * running intents): a transient failure. Nothing was run; the same request may be sent
 * again after `Retry-After`.
 */
export class StoreUnavailableError extends problem('StoreUnavailableError', 'store-unavailable') {
  /** Seconds the client should wait before sending the same request again. */
  readonly retryAfterSeconds: number;

  constructor(message: string, options?: { cause?: unknown; requestId?: string; retryAfterSeconds?: number }) {
    super(message, options);
    this.retryAfterSeconds = options?.retryAfterSeconds ?? 1;
  }

  protected override headers(): HeadersInit {
    return { [RETRY_AFTER_HEADER]: String(this.retryAfterSeconds) };
  }
}

/**
 * The worker lost its lease (another worker took the intent over) before it could store
 * its result; the result was discarded, never stored. The intent's answer is whatever
 * the current holder stores.
 */
export class LeaseLostError extends problem('LeaseLostError', 'request-in-progress') {}

/** `runOnce` waited `waitMs` for another live holder of the intent and it did not finish. */
export class IntentInProgressError extends problem('IntentInProgressError', 'request-in-progress') {}

/**
 * The store refused the operation in a way no retry cures (Redis `WRONGTYPE`, `NOPERM`,
 * a script error, a corrupt record): a permanent failure, answered 500 `store-failed`.
 * Nothing was run. See PROTOCOL.md § 10.4 for the classification.
 */
export class StoreFailedError extends problem('StoreFailedError', 'store-failed') {}

/**
 * The intent's stored attempt failed (the work threw, or answered 5xx). `runOnce` throws
 * it for a FAILED record its store handed back instead of letting it run again; `cause`
 * is the decoded stored error.
 */
export class AttemptFailedError extends problem('AttemptFailedError', 'intent-failed') {}

/**
 * The intent's work already ran `maxRuns` times (its first run, each retry after a
 * failure, each takeover of a lapsed lease): it will not run again under this ID, and
 * every later attempt gets this 409 `intent-exhausted`. Final: a new try is a new intent.
 * `runOnce` throws it; the handler answers it.
 */
export class IntentExhaustedError extends problem('IntentExhaustedError', 'intent-exhausted') {}

/**
 * The app's `scope` callback threw, or returned no valid scope. Answered 500
 * `internal-error` without its message; reported as a `scope-error` event.
 */
export class ScopeError extends problem('ScopeError', 'internal-error') {
  override getResponse(): Response {
    return problemResponse(this.code, {
      status: this.status,
      title: 'answer-once: the server could not tell who sent this request.',
      ...(this.requestId === undefined ? {} : { requestId: this.requestId }),
    });
  }
}

/**
 * True for every error `answer-once/server` throws, also when it comes from the other
 * build (ESM vs CJS) where `instanceof` fails: checks the brand, then the name and code.
 */
export function isIdempotencyError(error: unknown): error is IdempotencyError {
  if (typeof error !== 'object' || error === null) return false;
  if ((error as { [BRAND]?: unknown })[BRAND] === true) return true;
  const { name, code } = error as { name?: unknown; code?: unknown };
  return error instanceof Error && typeof name === 'string' && NAMES.has(name) && typeof code === 'string';
}
