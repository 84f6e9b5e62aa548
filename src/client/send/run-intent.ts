/**
 * One intent as ONE ky call. ky owns the attempt loop, per-attempt and total timeouts,
 * abortable delays, request cloning, hooks and errors; this module only decides, per
 * response or error, what the protocol says comes next, and hands ky that decision from
 * inside the call's `fetch` (so no error response is ever cloned to inspect it):
 * - a retryable status → a forced retry with the delay computed here;
 * - 202 → a forced retry whose request is the status poll: polls are retries of the same
 *   call, so `totalTimeout` and the signal cover them too; a long-poll leaves at once;
 * - the server reports the intent failed → a forced retry with the original request;
 * - a network error or timeout → ky's own retry, through `shouldRetry`;
 * - an answer whose body the connection cuts → a forced retry of the same request.
 * Where the loop stands is one `IntentProgress` value moved by the named transitions of
 * `intent-progress.ts`; delays are computed there too, so the `retry` event can announce
 * them before the wait.
 */
import type { Input, KyInstance } from 'ky';
import { PREFERENCE_APPLIED_HEADER, REQUEST_ID_HEADER } from '../../core/headers.js';
import { parsePreferWait } from '../../core/prefer.js';
import { ConnectionError } from '../errors/connection-error.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { ResponseError } from '../errors/response-error.js';
import type { RetryReason, SendEvent } from '../events.js';
import { ForceRetryError, isNetworkError, isTimeoutError, replaceOption } from '../ky.js';
import type { ResolvedClientOptions } from '../options.js';
import { isReplayed } from '../replayed.js';
import type { Persist } from '../storage/persist.js';
import { classify } from './classify.js';
import * as step from './intent-progress.js';
import { type ParseMode, readData } from './parse.js';
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
  readonly persist: Persist | undefined;
}

type Fetch = typeof globalThis.fetch;

/**
 * The send-route request again, from its re-readable body (string, form, bytes…). A form
 * is serialised anew, with a new multipart boundary: its content type is set again to match.
 */
function replayOf(sent: Request, body: BodyInit | null | undefined): Request {
  const { method, credentials, mode } = sent;
  const headers = new Headers(sent.headers);
  if (body instanceof FormData) headers.delete('content-type');
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

function discard(response: Response): void {
  void response.body?.cancel().catch(() => undefined);
}

export async function runIntent<TData>(
  options: ResolvedClientOptions,
  instance: KyInstance,
  baseFetch: Fetch | undefined,
  intent: IntentRequest,
): Promise<SendResult<TData>> {
  const { requestId, emit, persist } = intent;
  const { retry: policy } = options;
  // The send's own signal, else the client's default one (`createClient({ signal })`).
  const signal = intent.signal ?? options.signal;
  const startedAt = Date.now();
  const isStream = typeof ReadableStream !== 'undefined' && intent.body instanceof ReadableStream;
  let progress = step.START;
  /** A copy of the send-route request, kept once a 202 switches to polling (to resend it). */
  let original: Request | undefined;
  /** The request that got the answer (its `parseJson` context). */
  let lastRequest: Request | undefined;
  /** The delay `shouldRetry` computed, handed to ky's `delay` callback that follows it. */
  let networkDelay = 0;
  const context = () => step.contextOf(requestId, progress);

  /** Takes a retry from the budget and announces it; the delay, or `undefined` when spent. */
  const takeRetry = (reason: RetryReason, retryAfter: number | undefined, status?: number) => {
    const next = step.retry(progress, policy.limit);
    if (!next) return undefined;
    progress = next;
    const delay = step.retryDelay(options, progress, retryAfter);
    emit?.({
      type: 'retry',
      requestId,
      retry: progress.retries,
      retryLimit: policy.limit,
      reason,
      delay,
      ...(status && { status }),
    });
    return delay;
  };

  /** The server echoes the ID it read (`X-Request-Id`, § 6): another one is not this intent's answer. */
  const checkEcho = (response: Response) => {
    const echoed = response.headers.get(REQUEST_ID_HEADER);
    if (echoed === null || echoed === requestId) return;
    discard(response);
    throw new ProtocolError(
      `the server answered for request ID ${JSON.stringify(echoed.slice(0, 128))}, not this intent's (${requestId}).`,
      context(),
      response,
    );
  };

  async function fetchAndDecide(input: Input, init?: RequestInit): Promise<Response> {
    // ky always passes the Request it built; anything else is wrapped the same way.
    const request = input instanceof Request ? input : new Request(input, init);
    const polling = progress.phase === 'polling';
    if (polling) {
      progress = step.poll(progress);
      emit?.({ type: 'poll', requestId, polls: progress.polls, url: request.url });
    } else {
      if (progress.attempts === 0 && persist) await persist(request);
      progress = step.attempt(progress, request.url);
      emit?.({ type: 'attempt', requestId, attempt: progress.attempts, retryLimit: policy.limit });
    }
    // A stream body can be read once: keep a copy in case polling ends in a resend.
    const copy = !polling && original === undefined && isStream ? request.clone() : undefined;
    lastRequest = request;
    const sentAt = Date.now();
    const response = await (baseFetch ?? globalThis.fetch)(request, init);
    checkEcho(response);
    // The common case, an answer, needs no classifying; its body is received here, inside
    // the attempt, so a cut is retried like any lost response.
    if (response.status < 400 && response.status !== 202) {
      return intent.parse === 'none' ? response : received(response, request);
    }
    const verdict = await classify(response, policy.statusCodes);
    if (verdict.kind === 'done') return response;
    let next: Request | undefined;
    let delay: number | undefined;
    if (verdict.kind === 'accepted') {
      const statusUrl = statusUrlOf(response, request, verdict.location);
      const held =
        statusUrl !== undefined &&
        options.pollWait > 0 &&
        (!polling || heldFully(response, Date.now() - sentAt, options.pollWait));
      // Kept at the send route's first 202 (polls only follow one): what a resend sends.
      original ??= copy ?? replayOf(request, intent.body);
      progress = step.accepted(progress, statusUrl, held);
      // Long-polling: the poll itself is the wait, so it leaves at once after the 202 of
      // the send route, and after a poll the server held as long as it said it would.
      // Otherwise the 202's `Retry-After` (or `pollInterval`) paces the polls, above the floor.
      delay = step.pollDelay(options, progress, verdict.retryAfter);
      if (!polling) emit?.({ type: 'accepted', requestId, statusUrl, delay });
      next = statusUrl
        ? pollRequest(new URL(statusUrl), request, options.idHeaders(requestId), options.pollWait)
        : original!.clone();
    } else {
      delay = takeRetry(verdict.reason, verdict.retryAfter, response.status);
      if (delay === undefined) return response;
      if (verdict.kind === 'resend' && polling) {
        progress = step.resend(progress);
        next = original!.clone();
      }
    }
    discard(response);
    throw new ForceRetryError({ delay, code: verdict.kind, ...(next && { request: next }) });
  }

  /**
   * Where polls go after this 202: its `Location` (on the send's origin only), else the
   * one already known, else the app's `statusUrl(id)`; `undefined` resends to poll.
   */
  function statusUrlOf(response: Response, request: Request, location: string | null): string | undefined {
    const base = response.url || request.url;
    if (location !== null) {
      const url = new URL(location, base);
      if (url.origin === progress.origin) return url.href;
      discard(response);
      throw new ProtocolError(
        `the server's ${response.status} points its status at another origin (${url.href}); ` +
          "polling it would send your hooks' headers there. Set `statusUrl` to poll it on purpose.",
        context(),
        response,
      );
    }
    if (progress.statusUrl !== undefined) return progress.statusUrl;
    const configured = options.statusUrl?.(requestId);
    return configured === undefined ? undefined : new URL(configured, base).href;
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
      discard(response);
      // A timeout or abort: ky's own timer or the caller's signal decides what follows.
      if (request.signal.aborted) throw error;
      const delay = takeRetry('response-cut', undefined);
      if (delay === undefined) throw new ConnectionError(context(), error, 'cut');
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
      timeout: options.timeout,
      totalTimeout: options.totalTimeout,
      throwHttpErrors: true,
      fetch: fetchAndDecide,
      retry: replaceOption({
        limit: Number.MAX_SAFE_INTEGER,
        // The intent's own method, and GET for status polls: both carry the key.
        methods: [intent.method.toLowerCase(), 'get'],
        statusCodes: [],
        delay: () => networkDelay,
        // Only a network error or a timeout is ky's to retry (an HTTP error is neither: its
        // status was decided in `fetchAndDecide`), and not once aborted or past the deadline.
        shouldRetry: ({ error }) => {
          if (!isNetworkError(error) && !isTimeoutError(error)) return false;
          if (signal?.aborted || Date.now() - startedAt >= options.totalTimeout) return false;
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
  if (!response) throw toSendError(failure, context(), options, signal, Date.now() - startedAt);
  const replayed = isReplayed(response, options.replayedHeaders);
  if (replayed) emit?.({ type: 'replayed', requestId, status: response.status });
  let data: TData;
  try {
    data = (await readData(response, lastRequest!, intent.parse, options.parseJson)) as TData;
  } catch (error) {
    throw new ResponseError(
      { response, data: undefined, problem: undefined },
      context(),
      false,
      error,
      'the answer arrived but its body could not be parsed; set `parse` to match what the server sends.',
    );
  }
  return { data, response, replayed, ...context() };
}
