/**
 * What one response means for the intent: the answer, "still running", try again,
 * send the original again, or give up. Pure over the response (a copy of its body is read
 * for JSON error statuses, so ky still gets the body for its HTTPError).
 */
import { RETRY_AFTER_HEADER } from '../core/headers.js';
import { parseRetryAfter } from '../core/retry-after.js';
import type { RetryReason } from './events.js';
import { isJsonContentType } from './parse.js';

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

/** Never retried, whatever `retry.statusCodes` says: retrying cannot change the answer. */
const FINAL_STATUSES = new Set([400, 401, 403, 404, 422]);

/** The `code` of a problem body, whoever wrote it (ours, or an app's own codes). */
export function rawProblemCode(body: unknown): string | undefined {
  const code = typeof body === 'object' && body !== null ? (body as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * True when an answer with `status` and problem `code` is worth another attempt under
 * `retryStatuses`. A 409 is "still in progress" (IETF draft) only without a code or with
 * `request-in-progress`; a 409 with any other code is a real conflict, final.
 */
export function isRetryableStatus(status: number, code: string | undefined, retryStatuses: readonly number[]): boolean {
  if (status === 409) return code === undefined || code === 'request-in-progress';
  return !FINAL_STATUSES.has(status) && retryStatuses.includes(status);
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
  // An IETF-style server answers 409 while the first attempt runs; with a Location it
  // is a 202 in all but name.
  if (location && status === 409 && isRetryableStatus(status, code, retryStatuses)) {
    return { kind: 'accepted', location, retryAfter };
  }
  if (code === 'intent-failed' || (status === 404 && code === 'intent-not-found')) {
    return { kind: 'resend', reason: code, retryAfter };
  }
  if (!isRetryableStatus(status, code, retryStatuses)) return DONE;
  return { kind: 'retry', reason: status === 409 ? 'in-progress' : 'status', retryAfter };
}
