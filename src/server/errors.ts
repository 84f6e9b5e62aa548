import { RETRY_AFTER_HEADER } from '../core/headers.js';
import type { ProblemCode } from '../core/problems.js';
import { problemResponse } from './problem.js';

/**
 * The base of every error `answer-once/server` throws. Each one knows the problem+json
 * answer it stands for, so the HTTP layer never invents status codes of its own.
 */
export abstract class IdempotencyError extends Error {
  override name: string = 'IdempotencyError';
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

/** Neither `X-Request-Id` nor `Idempotency-Key` was sent. */
export class MissingRequestIdError extends IdempotencyError {
  override name = 'MissingRequestIdError' as const;
  readonly code = 'missing-request-id' as const;
  readonly status = 400;
}

/** The request ID is not 8–128 characters of `[A-Za-z0-9_-]`. */
export class InvalidRequestIdError extends IdempotencyError {
  override name = 'InvalidRequestIdError' as const;
  readonly code = 'invalid-request-id' as const;
  readonly status = 400;
}

/** The request ID was used before with another method, path or body. */
export class RequestIdReusedError extends IdempotencyError {
  override name = 'RequestIdReusedError' as const;
  readonly code = 'request-id-reused' as const;
  readonly status = 422;
}

/** The request body is larger than `maxBodyBytes`. */
export class PayloadTooLargeError extends IdempotencyError {
  override name = 'PayloadTooLargeError' as const;
  readonly code = 'payload-too-large' as const;
  readonly status = 413;
}

/**
 * The store could not be reached or refused the operation (Redis down, memory store
 * full of running intents). Nothing was run; the same request may be sent again.
 */
export class StoreUnavailableError extends IdempotencyError {
  override name = 'StoreUnavailableError' as const;
  readonly code = 'store-unavailable' as const;
  readonly status = 503;
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
export class LeaseLostError extends IdempotencyError {
  override name = 'LeaseLostError' as const;
  readonly code = 'request-in-progress' as const;
  readonly status = 409;
}

/** `runOnce` waited `waitMs` for another live holder of the intent and it did not finish. */
export class IntentInProgressError extends IdempotencyError {
  override name = 'IntentInProgressError' as const;
  readonly code = 'request-in-progress' as const;
  readonly status = 409;
}

/**
 * The intent's last attempt failed (the work threw, or answered 5xx). `runOnce` throws it
 * for a FAILED record it was not allowed to re-run; `cause` is the decoded stored error.
 */
export class IntentFailedError extends IdempotencyError {
  override name = 'IntentFailedError' as const;
  readonly code = 'intent-failed' as const;
  readonly status = 500;
}
