/**
 * What one response means for the intent: the answer, "still running", try again,
 * send the original again, or give up. Pure over the response (a copy of its body is read
 * for JSON error statuses, so ky still gets the body for its HTTPError).
 */
import { RETRY_AFTER_HEADER } from '../../core/headers.js';
import { nextAfter, type ProblemDetails, type ResendCode } from '../../core/problems.js';
import type { RetryReason } from '../events.js';
import { isJsonContentType } from './parse.js';
import { parseRetryAfter } from './retry-after.js';

export type ResponseVerdict =
  /** Let ky finish: a 2xx is the answer, any other status becomes an error. */
  | { readonly kind: 'done' }
  /** 202 (or 409 in progress with a Location): the intent is running; poll `location`. */
  | { readonly kind: 'accepted'; readonly location: string | null; readonly retryAfter: number | undefined }
  /** Try the same request again. */
  | { readonly kind: 'retry'; readonly reason: RetryReason; readonly retryAfter: number | undefined }
  /** Send the intent's original request again (same ID). */
  | { readonly kind: 'resend'; readonly reason: RetryReason; readonly retryAfter: number | undefined };

const DONE: ResponseVerdict = { kind: 'done' };

/** The `code` of a problem body, whoever wrote it (ours, or an app's own codes). */
export function rawProblemCode(body: unknown): string | undefined {
  const code = typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** A parsed body as problem details, when it has their shape (a numeric `status`). */
export function asProblem(data: unknown): ProblemDetails | undefined {
  return typeof data === 'object' && data !== null && typeof (data as { status?: unknown }).status === 'number'
    ? (data as ProblemDetails)
    : undefined;
}

async function readProblemCode(response: Response): Promise<string | undefined> {
  if (!isJsonContentType(response.headers.get('content-type'))) return undefined;
  try {
    return rawProblemCode(JSON.parse(await response.clone().text()));
  } catch {
    return undefined;
  }
}

export async function classify(
  response: Response,
  retryStatuses: readonly number[],
  now: number = Date.now(),
): Promise<ResponseVerdict> {
  const { status } = response;
  if (status !== 202 && status < 400) return DONE;
  const retryAfter = parseRetryAfter(response.headers.get(RETRY_AFTER_HEADER), now);
  const location = response.headers.get('location');
  if (status === 202) return { kind: 'accepted', location, retryAfter };
  const code = await readProblemCode(response);
  const next = nextAfter(status, code, retryStatuses);
  // An IETF-style server answers 409 while the first attempt runs; with a Location it
  // is a 202 in all but name.
  if (location && status === 409 && next === 'in-progress') return { kind: 'accepted', location, retryAfter };
  if (next === 'resend') return { kind: 'resend', reason: code as ResendCode, retryAfter };
  if (next === 'retry') return { kind: 'retry', reason: 'status', retryAfter };
  if (next === 'in-progress') return { kind: 'retry', reason: 'in-progress', retryAfter };
  return DONE;
}
