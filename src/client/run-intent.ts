/**
 * One intent as ONE ky call. ky owns the attempt loop, per-attempt and total timeouts,
 * abortable delays, request cloning and hooks; this module only decides, per response
 * or error, what the protocol says comes next, and hands ky that decision:
 * - a retryable failure → `ky.retry({ delay })` (responses) or `shouldRetry` (network);
 * - 202 → `ky.retry({ request: <status poll> })`: polls are retries of the same call, so
 *   `totalTimeout` and the signal cover them too;
 * - the server reports the intent failed → `ky.retry({ request: <original> })`.
 * Delays are computed here (full jitter, `Retry-After` capped) so the `retry` event can
 * announce them before the wait.
 */
import { isHTTPError, isNetworkError, isTimeoutError, replaceOption, type KyInstance } from 'ky';
import { backoffDelay } from '../core/backoff.js';
import { PREFERENCE_APPLIED_HEADER } from '../core/headers.js';
import { parsePreferWait } from '../core/prefer.js';
import { classify } from './classify.js';
import type { RetryReason, SendEvent } from './events.js';
import type { ResolvedClientOptions } from './options.js';
import { readData, type ParseMode } from './parse.js';
import { pollRequest } from './poll-request.js';
import { toSendError } from './to-send-error.js';

/** What `send()` resolves with. */
export interface SendResult<TData = unknown> {
  /** The answer's body: JSON when the content type says so, else text (see `parse`). */
  readonly data: TData;
  /** The answering response (its body already read unless `parse: 'none'`). */
  readonly response: Response;
  /** The intent's ID, the same on every attempt and poll. */
  readonly requestId: string;
  /** True when the server replayed a stored answer instead of running the work now. */
  readonly replayed: boolean;
  /** Requests made to the send route (1 + retries and resends). */
  readonly attempts: number;
  /** Status polls made while the server reported the intent running. */
  readonly polls: number;
}

/** One intent's request, options resolved. */
export interface IntentRequest {
  readonly requestId: string;
  readonly input: string | URL;
  readonly method: string;
  readonly json?: unknown;
  readonly body?: BodyInit | null;
  readonly headers: Headers;
  readonly searchParams?: unknown;
  readonly parse: ParseMode;
  readonly signal: AbortSignal | undefined;
  readonly emit: (event: SendEvent) => void;
  /** Writes the pending intent; called once, before the first attempt leaves. */
  readonly persist: ((request: Request) => Promise<void>) | undefined;
}

const ALL_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'trace', 'query'] as const;

export async function runIntent<TData>(
  client: ResolvedClientOptions,
  instance: KyInstance,
  intent: IntentRequest,
): Promise<SendResult<TData>> {
  const { requestId, emit } = intent;
  const { retry, headerName } = client;
  const idValue = client.formatId(requestId);
  const startedAt = Date.now();
  let attempts = 0;
  let polls = 0;
  let retries = 0;
  let networkDelay = 0;
  /** What the request in flight is counted as, and which route it goes to. */
  let counted: 'attempt' | 'poll' = 'attempt';
  let route: 'send' | 'status' = 'send';
  let accepted = false;
  /** An unsent copy of the original request, refreshed by ky after every send-route attempt. */
  let original: Request | undefined;
  let lastRequest: Request | undefined;
  /** Where this intent's status is polled, once a 202 said so. */
  let statusUrl: URL | undefined;

  const context = () => ({ requestId, attempts, polls });
  const nextDelay = (retryAfter: number | undefined) =>
    retryAfter === undefined
      ? backoffDelay(retries, { base: retry.delay, cap: retry.backoffLimit, random: retry.random })
      : Math.min(retryAfter, retry.maxRetryAfter);
  const takeRetry = (reason: RetryReason, retryAfter: number | undefined, status?: number): number | undefined => {
    if (retries >= retry.limit) return undefined;
    retries += 1;
    const delay = nextDelay(retryAfter);
    emit({ type: 'retry', requestId, attempt: retries, retryLimit: retry.limit, reason, delay, ...(status === undefined ? {} : { status }) });
    return delay;
  };
  const count = (url: string) => {
    if (counted === 'attempt') {
      attempts += 1;
      emit({ type: 'attempt', requestId, attempt: attempts, retryLimit: retry.limit });
    } else {
      polls += 1;
      emit({ type: 'poll', requestId, polls, url });
    }
  };

  let response: Response | undefined;
  try {
    response = await instance(intent.input, {
      method: intent.method,
      json: intent.json,
      body: intent.body,
      headers: intent.headers,
      searchParams: intent.searchParams as never,
      signal: intent.signal,
      timeout: client.timeout,
      totalTimeout: client.totalTimeout,
      throwHttpErrors: true,
      retry: replaceOption({
        limit: Number.MAX_SAFE_INTEGER,
        methods: [...ALL_METHODS],
        statusCodes: [],
        afterStatusCodes: [],
        backoffLimit: Number.POSITIVE_INFINITY,
        delay: () => networkDelay,
        shouldRetry: ({ error }) => {
          if (isHTTPError(error) || intent.signal?.aborted) return false;
          if (!isNetworkError(error) && !isTimeoutError(error)) return false;
          if (Date.now() - startedAt >= client.totalTimeout) return false;
          const delay = takeRetry(isTimeoutError(error) ? 'timeout' : 'network', undefined);
          if (delay === undefined) return false;
          networkDelay = delay;
          return true;
        },
      }),
      hooks: {
        beforeRequest: [
          async ({ request }) => {
            await intent.persist?.(request);
            count(request.url);
          },
        ],
        beforeRetry: [({ request }) => count(request.url)],
        afterResponse: [
          async ({ request, response: answer }) => {
            lastRequest = request;
            if (route === 'send') original = request;
            const verdict = await classify(answer, retry.statusCodes);
            if (verdict.kind === 'done') return;
            if (verdict.kind === 'accepted') {
              const target = verdict.location ?? (statusUrl ? undefined : client.statusUrl?.(requestId));
              const url = target === undefined ? statusUrl : new URL(target, answer.url || request.url);
              statusUrl = url;
              const held = parsePreferWait(answer.headers.get(PREFERENCE_APPLIED_HEADER)) !== undefined;
              const delay = Math.min(verdict.retryAfter ?? (held ? 0 : client.pollInterval), retry.maxRetryAfter);
              if (!accepted) {
                accepted = true;
                emit({ type: 'accepted', requestId, statusUrl: url?.href, delay });
              }
              counted = 'poll';
              route = url ? 'status' : 'send';
              const next = url ? pollRequest(url, request, headerName, idValue, client.pollWait) : original;
              return instance.retry({ request: next, delay, code: 'poll' });
            }
            const delay = takeRetry(verdict.reason, verdict.retryAfter, answer.status);
            if (delay === undefined) return;
            if (verdict.kind === 'retry') return instance.retry({ delay, code: verdict.reason });
            counted = 'attempt';
            route = 'send';
            return instance.retry({ request: original, delay, code: verdict.reason });
          },
        ],
      },
    });
  } catch (error) {
    throw toSendError(error, context(), client, intent.signal, Date.now() - startedAt);
  }
  if (!response) throw toSendError(undefined, context(), client, intent.signal, Date.now() - startedAt);
  const replayed = client.replayedHeaders.some((name) => response.headers.get(name)?.trim().toLowerCase() === 'true');
  if (replayed) emit({ type: 'replayed', requestId, status: response.status });
  const data = (await readData(response, lastRequest!, intent.parse, client.parseJson)) as TData;
  return { data, response, requestId, replayed, attempts, polls };
}
