/**
 * One intent as ONE ky call. ky owns the attempt loop, per-attempt and total timeouts,
 * abortable delays, request cloning, hooks and errors; this module only decides, per
 * response or error, what the protocol says comes next, and hands ky that decision from
 * inside the call's `fetch` (so no response is ever cloned to inspect it):
 * - a retryable status → a forced retry with the delay computed here;
 * - 202 → a forced retry whose request is the status poll: polls are retries of the same
 *   call, so `totalTimeout` and the signal cover them too; a long-poll leaves at once;
 * - the server reports the intent failed → a forced retry with the original request;
 * - a network error or timeout → ky's own retry, through `shouldRetry`.
 * Delays are computed here (full jitter, `Retry-After` capped) so the `retry` event can
 * announce them before the wait.
 */
import type { Input, KyInstance } from 'ky';
import { ForceRetryError, isHTTPError, isNetworkError, isTimeoutError, replaceOption } from './ky.js';
import { backoffDelay } from '../core/backoff.js';
import { PREFERENCE_APPLIED_HEADER } from '../core/headers.js';
import { parsePreferWait } from '../core/prefer.js';
import { classify } from './classify.js';
import { ConnectionError } from './errors/connection-error.js';
import { ProtocolError } from './errors/protocol-error.js';
import { ResponseError } from './errors/response-error.js';
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
  /** Sent on every attempt and resend; a `json` body arrives here already serialised. */
  readonly body: BodyInit | null | undefined;
  readonly headers: HeadersInit;
  readonly searchParams?: unknown;
  readonly parse: ParseMode;
  readonly signal: AbortSignal | undefined;
  /** Reports an event; `undefined` when nobody listens (events are then never built). */
  readonly emit: ((event: SendEvent) => void) | undefined;
  /** Writes the pending intent; called once, before the first attempt leaves. */
  readonly persist: ((request: Request) => Promise<void>) | undefined;
}

type Fetch = typeof globalThis.fetch;

/** The send-route request again, from its re-readable body (string, form, bytes…). */
function replayOf(sent: Request, body: BodyInit | null | undefined): Request {
  const { method, headers, credentials, mode } = sent;
  return new Request(sent.url, { method, headers, credentials, mode, body: body ?? null });
}

/** Timer slack when checking that a server held a poll as long as it said it would. */
const HOLD_SLACK_MS = 100;

/**
 * True when a poll's 202 says the server applied `Prefer: wait=N` (`Preference-Applied`,
 * N ≥ 1) and it did hold the poll about that long (capped at the `pollWait` asked for):
 * polling again at once is then a long-poll, not hammering.
 */
function heldFully(response: Response, elapsed: number, pollWait: number): boolean {
  const applied = parsePreferWait(response.headers.get(PREFERENCE_APPLIED_HEADER));
  return applied !== undefined && applied > 0 && elapsed >= Math.min(applied, pollWait) * 1000 - HOLD_SLACK_MS;
}

/**
 * The wait before the next poll after the `unheld`-th 202 in a row that the server did
 * not hold: its `Retry-After` (else `pollInterval`), capped at `maxRetryAfter`, but never
 * below a floor that starts at `minPollInterval` and doubles per such 202 up to
 * `pollInterval`. So `202` + `Retry-After: 0` from a server that ignores `Prefer` costs
 * 250, 500, 1000, 1000… ms with the defaults, not a tight loop.
 */
export function pollDelay(
  options: Pick<ResolvedClientOptions, 'pollInterval' | 'minPollInterval' | 'retry'>,
  retryAfter: number | undefined,
  unheld: number,
): number {
  const { pollInterval, minPollInterval } = options;
  const floor = Math.min(minPollInterval * 2 ** Math.min(unheld - 1, 30), Math.max(pollInterval, minPollInterval));
  return Math.max(floor, Math.min(retryAfter ?? pollInterval, options.retry.maxRetryAfter));
}

export async function runIntent<TData>(
  client: ResolvedClientOptions,
  instance: KyInstance,
  baseFetch: Fetch | undefined,
  intent: IntentRequest,
): Promise<SendResult<TData>> {
  const { requestId, emit, persist } = intent;
  const { retry } = client;
  // The send's own signal, else the client's default one (`createClient({ signal })`).
  const signal = intent.signal ?? client.signal;
  const startedAt = Date.now();
  let attempts = 0;
  let polls = 0;
  let retries = 0;
  let networkDelay = 0;
  /** 202s in a row that came back without being held: each one raises the pacing floor. */
  let unheld = 0;
  /** Whether the request in flight goes to the send route (an attempt) or polls. */
  let polling = false;
  /** A copy of the send-route request, kept only once a 202 switches to polling. */
  let original: Request | undefined;
  let statusUrl: URL | undefined;
  /** The send route's origin: the only one a `Location` may point polls at. */
  let sendOrigin: string | undefined;
  let lastRequest: Request | undefined;
  const isStream = typeof ReadableStream !== 'undefined' && intent.body instanceof ReadableStream;

  const takeRetry = (reason: RetryReason, retryAfter: number | undefined, status?: number) => {
    if (retries >= retry.limit) return undefined;
    retries += 1;
    const delay =
      retryAfter === undefined
        ? backoffDelay(retries, { base: retry.delay, cap: retry.backoffLimit, random: retry.random })
        : Math.min(retryAfter, retry.maxRetryAfter);
    emit?.({ type: 'retry', requestId, attempt: retries, retryLimit: retry.limit, reason, delay, ...(status && { status }) });
    return delay;
  };

  async function fetchAndDecide(input: Input, init?: RequestInit): Promise<Response> {
    // ky always passes the Request it built; anything else is wrapped the same way.
    const request = input instanceof Request ? input : new Request(input, init);
    if (polling) {
      polls += 1;
      emit?.({ type: 'poll', requestId, polls, url: request.url });
    } else {
      if (attempts === 0 && persist) await persist(request);
      attempts += 1;
      emit?.({ type: 'attempt', requestId, attempt: attempts, retryLimit: retry.limit });
    }
    // A stream body can be read once: keep a copy in case polling ends in a resend.
    const copy = !polling && original === undefined && isStream ? request.clone() : undefined;
    lastRequest = request;
    const sentAt = Date.now();
    const response = await (baseFetch ?? globalThis.fetch)(request, init);
    // The common case, an answer, needs no header read and no classifying; its body is
    // received here, inside the attempt, so a cut is retried like any lost response.
    if (response.status < 400 && response.status !== 202) {
      return intent.parse === 'none' ? response : received(response, request);
    }
    const verdict = await classify(response, retry.statusCodes);
    if (verdict.kind === 'done') return response;
    let next: Request | undefined;
    let delay: number | undefined;
    if (verdict.kind === 'accepted') {
      sendOrigin ??= new URL(request.url).origin;
      const location = verdict.location === null ? undefined : new URL(verdict.location, response.url || request.url);
      if (location && location.origin !== sendOrigin) {
        void response.body?.cancel().catch(() => undefined);
        throw new ProtocolError(
          `the server's ${response.status} points its status at another origin (${location.href}); ` +
            'polling it would send your hooks\' headers there. Set `statusUrl` to poll it on purpose.',
          { requestId, attempts, polls },
          response,
        );
      }
      const configured = location || statusUrl ? undefined : client.statusUrl?.(requestId);
      statusUrl = location ?? (configured === undefined ? statusUrl : new URL(configured, response.url || request.url));
      if (!polling) original ??= copy ?? replayOf(request, intent.body);
      // Long-polling: the poll itself is the wait, so it leaves at once after the 202 of
      // the send route, and after a poll the server held as long as it said it would.
      // Otherwise (no status URL, `pollWait: 0`, a server that ignores `Prefer` or let
      // go early) the 202's `Retry-After` or `pollInterval` paces the polls.
      // Either way, no poll leaves sooner than the pacing floor after a 202 that was not
      // held, and the floor doubles while they keep coming (up to `pollInterval`).
      if (statusUrl && client.pollWait > 0 && (!polling || heldFully(response, Date.now() - sentAt, client.pollWait))) {
        delay = 0;
        unheld = 0;
      } else {
        unheld += 1;
        delay = pollDelay(client, verdict.retryAfter, unheld);
      }
      if (!polling) emit?.({ type: 'accepted', requestId, statusUrl: statusUrl?.href, delay });
      polling = true;
      next = statusUrl
        ? pollRequest(statusUrl, request, client.headerName, client.formatId(requestId), client.pollWait)
        : original!.clone();
    } else {
      delay = takeRetry(verdict.reason, verdict.retryAfter, response.status);
      if (delay === undefined) return response;
      if (verdict.kind === 'resend' && polling) {
        polling = false;
        next = original!.clone();
      }
    }
    void response.body?.cancel().catch(() => undefined);
    throw new ForceRetryError({ delay, code: verdict.kind, ...(next && { request: next }) });
  }

  /**
   * The answer once its whole body arrived (buffered in a clone's tee). A body the network
   * cut after the headers (`TypeError: terminated` in undici, `network error` in browsers)
   * is a lost response: the answer is stored on the server, so the same request, with the
   * same ID, is sent again and replays it.
   */
  async function received(response: Response, request: Request): Promise<Response> {
    try {
      await response.clone().arrayBuffer();
      return response;
    } catch (error) {
      void response.body?.cancel().catch(() => undefined);
      // A timeout or abort: ky's own timer or the caller's signal decides what follows.
      if (request.signal.aborted) throw error;
      const delay = takeRetry('response-cut', undefined);
      if (delay === undefined) throw new ConnectionError({ requestId, attempts, polls }, error, 'cut');
      throw new ForceRetryError({ delay, code: 'response-cut' });
    }
  }

  let response: Response | undefined;
  let failure: unknown;
  try {
    response = await instance(intent.input, {
      method: intent.method,
      body: intent.body,
      headers: intent.headers,
      // Only a send's own: an explicit undefined would erase the client's defaults.
      ...(intent.searchParams !== undefined && { searchParams: intent.searchParams as never }),
      ...(signal !== undefined && { signal }),
      timeout: client.timeout,
      totalTimeout: client.totalTimeout,
      throwHttpErrors: true,
      fetch: fetchAndDecide,
      retry: replaceOption({
        limit: Number.MAX_SAFE_INTEGER,
        // The intent's own method, and GET for status polls: both carry the key.
        methods: [intent.method.toLowerCase(), 'get'],
        statusCodes: [],
        delay: () => networkDelay,
        shouldRetry: ({ error }) => {
          if (isHTTPError(error) || signal?.aborted || Date.now() - startedAt >= client.totalTimeout) return false;
          if (!isNetworkError(error) && !isTimeoutError(error)) return false;
          const delay = takeRetry(isTimeoutError(error) ? 'timeout' : 'network', undefined);
          networkDelay = delay ?? 0;
          return delay !== undefined;
        },
      }),
    });
  } catch (error) {
    failure = error;
  }
  // No response and no error: a ky hook stopped the send.
  if (!response) throw toSendError(failure, { requestId, attempts, polls }, client, signal, Date.now() - startedAt);
  const replayed = client.replayedHeaders.some((name) => response.headers.get(name)?.trim().toLowerCase() === 'true');
  if (replayed) emit?.({ type: 'replayed', requestId, status: response.status });
  let data: TData;
  try {
    data = (await readData(response, lastRequest!, intent.parse, client.parseJson)) as TData;
  } catch (error) {
    throw new ResponseError(
      { response, data: undefined, problem: undefined },
      { requestId, attempts, polls },
      false,
      error,
      'the answer arrived but its body could not be read; set `parse` to match what the server sends.',
    );
  }
  return { data, response, requestId, replayed, attempts, polls };
}
