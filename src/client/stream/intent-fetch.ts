/**
 * `client.fetch`: `fetch`'s own signature over the client's intents, so any SDK that takes
 * a custom `fetch` (the AI SDK's transports, openai-node, the Anthropic SDK) sends
 * through answer-once. Each call is one intent, sent as `send` sends it (`parse: 'none'`);
 * its answer comes back as a `Response` whose body resumes itself (./resumable-body.ts).
 */

import { IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER } from '../../core/headers.js';
import { newRequestId } from '../../core/ids.js';
import { isNullBodyStatus } from '../../core/null-body.js';
import { invalidOption } from '../../core/options.js';
import { isValidRequestId, unquote } from '../../core/request-id.js';
import { isEventStream } from '../../core/stream-protocol.js';
import { AbortError } from '../errors/abort-error.js';
import { ResponseError } from '../errors/response-error.js';
import type { SendEvent } from '../events.js';
import type { OpenAnswer, OpenedAnswer } from '../extensions.js';
import type { ResolvedClientOptions } from '../options.js';
import { notify } from '../send/join.js';
import type { SendResult } from '../send/run-intent.js';
import type { SendOptions } from '../send/send-options.js';
import { isStoppedInStorage } from '../storage/stopped.js';
import { resumableBody } from './resumable-body.js';

/** How client.fetch's sends differ from `send`'s; internal to the client. */
export interface DispatchInternals {
  /** `false`: do not write the intent to storage (a reconnect of one already there). */
  readonly persist?: boolean;
  /** The body is still to be read: do not settle (event, storage) when the headers arrive. */
  readonly bodyPending?: boolean;
  /** A streamed body's reconnect: whatever it ends with, the body settles the intent, not this send. */
  readonly reconnect?: boolean;
}

type Dispatch = (
  input: string | URL,
  label: string,
  options: SendOptions,
  internal: DispatchInternals,
) => Promise<SendResult>;

export interface IntentFetchDeps {
  /** The client's options, resolved. */
  readonly clientOptions: ResolvedClientOptions;
  readonly dispatch: Dispatch;
  /** Drops the settled intent from storage (unless it is a stopped one to keep; `replayed`: how it was answered). */
  readonly forget: (requestId: string, replayed: boolean) => Promise<void>;
}

/** One call's request, read once so every attempt and reconnect can send it again. */
interface FetchCall {
  readonly url: string | URL;
  /** What storage records as the intent's `input`. */
  readonly label: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body: BodyInit | undefined;
  readonly signal: AbortSignal | undefined;
  readonly requestId: string;
}

const fatal = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });

/** Bytes as text when they are UTF-8 (so storage can keep them), else the bytes. */
function textOrBytes(bytes: Uint8Array): BodyInit {
  try {
    return fatal.decode(bytes);
  } catch {
    return bytes as Uint8Array<ArrayBuffer>;
  }
}

/** A body every attempt can send again: one-shot kinds (streams, a Request's body) are read once. */
async function resendable(body: BodyInit): Promise<BodyInit> {
  if (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream) {
    return textOrBytes(new Uint8Array(await new Response(body).arrayBuffer()));
  }
  return body;
}

/**
 * The ID the caller put in the request — the client's `headerName` first, then
 * `X-Request-Id`, then `Idempotency-Key`, as the server reads them — removed from `headers`.
 */
function takeRequestId(headers: Headers, headerName: string | undefined): string | undefined {
  let found: string | undefined;
  for (const name of [headerName ?? REQUEST_ID_HEADER, REQUEST_ID_HEADER, IDEMPOTENCY_KEY_HEADER]) {
    const value = headers.get(name);
    headers.delete(name);
    if (value !== null && found === undefined) {
      found = unquote(value);
      if (!isValidRequestId(found)) invalidOption(`${name} header`, '8–128 characters of [A-Za-z0-9_-]', value);
    }
  }
  return found;
}

async function fetchCall(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
  headerName: string | undefined,
): Promise<FetchCall> {
  const request = typeof Request !== 'undefined' && input instanceof Request ? input : undefined;
  const headers = new Headers(init?.headers ?? request?.headers);
  let body: BodyInit | undefined;
  if (init?.body != null) body = await resendable(init.body);
  else if (request?.body && init?.body === undefined) body = textOrBytes(new Uint8Array(await request.arrayBuffer()));
  const url = request ? request.url : input instanceof URL ? input : String(input);
  return {
    url,
    label: String(url),
    method: (init?.method ?? request?.method ?? 'GET').toUpperCase(),
    headers,
    body,
    signal: init?.signal ?? request?.signal ?? undefined,
    requestId: takeRequestId(headers, headerName) ?? newRequestId(),
  };
}

/** An error `send` rejects with that carries the server's final answer: `fetch` resolves with it. */
function answerOf(error: unknown): Response | undefined {
  if (!(error instanceof ResponseError)) return undefined;
  const { response, data } = error;
  const text = data === undefined ? null : typeof data === 'string' ? data : JSON.stringify(data);
  return new Response(isNullBodyStatus(response.status) ? null : text, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * Sends one intent (`options.requestId` set) as `send` would, its body unread, and wraps
 * the answer's body so it resumes itself. Rejects as `send` does.
 */
export async function openAnswer(
  deps: IntentFetchDeps,
  url: string | URL,
  label: string,
  options: SendOptions & { readonly requestId: string },
): Promise<OpenedAnswer> {
  const { requestId, signal } = options;
  const emit = (event: SendEvent) => {
    notify(deps.clientOptions.onEvent, event);
    notify(options.onEvent, event);
  };
  // Shared with the other tabs of the origin (`tabs`): one of them reads, the others follow —
  // unless a tab stopped it. The server keeps the answer cut where that tab's reader was
  // (§ 14.8); a tab still reading it may hold more, so it is read from the server.
  const { tabs, storage } = deps.clientOptions;
  const shared =
    tabs && !(await isStoppedInStorage(storage, requestId))
      ? tabs.share(requestId, (resume, onChunk) => openOwn(deps, url, label, options, resume, onChunk), {
          signal,
          aborted: (reason) => new AbortError({ requestId, attempts: 0, polls: 0 }, reason),
          deadlines: { total: deps.clientOptions.totalTimeout, idle: deps.clientOptions.idleTimeout },
          followed(error) {
            // The stored intent is the reading tab's to settle: a follower that left (its
            // reader cancelled, aborted) leaves it for the reading tab, or its next reload.
            if (error !== undefined) {
              emit({ type: 'settled', requestId, outcome: 'failed', error: toError(error), attempts: 0, polls: 0 });
              return;
            }
            emit({ type: 'settled', requestId, outcome: 'answered', replayed: false, attempts: 0, polls: 0 });
            void deps.forget(requestId, false);
          },
        })
      : undefined;
  return shared ?? openOwn(deps, url, label, options, undefined, undefined);
}

const toError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

/** This tab's own read of the answer: from its start, or from `resume`'s position (a takeover). */
async function openOwn(
  { clientOptions, dispatch, forget }: IntentFetchDeps,
  url: string | URL,
  label: string,
  options: SendOptions & { readonly requestId: string },
  resume: Parameters<OpenAnswer>[0],
  onChunk: Parameters<OpenAnswer>[1] | undefined,
): Promise<OpenedAnswer> {
  const { requestId, signal } = options;
  // Over every send of the intent: the first, and each reconnect's.
  let attempts = 0;
  let polls = 0;
  const own = options.onEvent;
  const onEvent = (event: SendEvent) => {
    if (event.type === 'attempt') attempts += 1;
    else if (event.type === 'poll') polls += 1;
    own?.(event);
  };
  const withPosition = (extra?: Record<string, string>, halt?: AbortSignal): SendOptions => {
    if (!extra) return { ...options, parse: 'none', onEvent };
    const headers = new Headers(options.headers);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return { ...options, headers, parse: 'none', onEvent, ...(halt && { signal: halt }) };
  };
  const result = await dispatch(
    url,
    label,
    withPosition(resume?.headers),
    resume ? { bodyPending: true, persist: false } : { bodyPending: true },
  );
  const { response, replayed } = result;
  const emit = (event: SendEvent) => {
    notify(clientOptions.onEvent, event);
    notify(own, event);
  };
  const settle = (error: unknown) => {
    emit(
      error === undefined
        ? { type: 'settled', requestId, outcome: 'answered', replayed, attempts, polls }
        : {
            type: 'settled',
            requestId,
            outcome: 'failed',
            error: toError(error),
            attempts,
            polls,
          },
    );
    void forget(requestId, replayed);
  };
  if (!response.body || isNullBodyStatus(response.status) || options.method === 'HEAD') {
    settle(undefined);
    return { requestId, response, replayed };
  }
  const body = resumableBody(response, {
    requestId,
    retry: clientOptions.retry,
    replayedHeaders: clientOptions.replayedHeaders,
    idleTimeout: clientOptions.idleTimeout,
    signal,
    emit,
    attempts: () => attempts,
    settle,
    ...(resume && { from: resume.at }),
    ...(onChunk && { onChunk }),
    async reconnect(extra, halt) {
      // `halt` carries the caller's signal and the body's idle deadline.
      const next = await dispatch(url, label, withPosition(extra, halt), {
        bodyPending: true,
        persist: false,
        reconnect: true,
      });
      return next.response;
    },
  });
  const headers = new Headers(response.headers);
  // The body may grow by a restart marker, and is never compressed twice.
  if (isEventStream(headers.get('content-type'))) headers.delete('content-length');
  const resumable = new Response(body, { status: response.status, statusText: response.statusText, headers });
  Object.defineProperty(resumable, 'url', { value: response.url });
  return { requestId, response: resumable, replayed };
}

export function createIntentFetch(deps: IntentFetchDeps) {
  return async function answerOnceFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const call = await fetchCall(input, init, deps.clientOptions.headerName);
    try {
      const opened = await openAnswer(deps, call.url, call.label, {
        method: call.method,
        headers: call.headers,
        body: call.body ?? null,
        requestId: call.requestId,
        ...(call.signal && { signal: call.signal }),
      });
      return opened.response;
    } catch (error) {
      // Settled by the send already. Like fetch, an HTTP error status is an answer.
      const answer = answerOf(error);
      if (answer) return answer;
      throw error;
    }
  };
}
