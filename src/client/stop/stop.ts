/**
 * `client.stop()`, built by the `stopping` capability (`createClient({ stopping })`: a
 * client that does not stop bundles none of it): stops an intent's generation on the server — `DELETE <status
 * route>/<id>` (PROTOCOL.md § 14.8), wherever it runs — and keeps the intent in storage
 * so a reload shows the stopped partial answer without a model call
 * (`./storage/stopped.ts` says how long).
 *
 * The status route is the app's `statusUrl(id)` when set, else the server's default
 * `/api/status/<id>` on the intent's origin (the URL it was sent to), else on `baseUrl`'s
 * or the page's.
 */
import type { KyInstance } from 'ky';
import { LAST_EVENT_ID_HEADER, REPLAYED_HEADER } from '../../core/headers.js';
import { invalidOption } from '../../core/options.js';
import type { ProblemCode } from '../../core/problems.js';
import { isValidRequestId } from '../../core/request-id.js';
import { DEFAULT_STATUS_PATH } from '../../core/status-path.js';
import type { StopOutcome } from '../../core/stop-outcome.js';
import { parsePosition } from '../../core/stream-protocol.js';
import { AbortError } from '../errors/abort-error.js';
import { ConnectionError } from '../errors/connection-error.js';
import { StopNotConfirmedError } from '../errors/stop-not-confirmed-error.js';
import type { Stopping } from '../extensions.js';
import { isHTTPError } from '../ky.js';
import type { ResolvedClientOptions } from '../options.js';
import { asProblem, rawProblemCode } from '../send/classify.js';
import { isJsonContentType } from '../send/parse.js';
import type { StoppedIntents } from '../storage/stopped.js';
import type { StoredIntent } from '../storage/types.js';

/** Statuses a stop is sent again for: it changes nothing twice (§ 14.8). */
const STOP_RETRY_STATUSES = [408, 429, 502, 503, 504];

/**
 * What `client.stop()` resolves with: the outcome the stop route confirmed. Any other
 * answer (405 from a route that does not answer `DELETE`, a 404 that is not the
 * protocol's, 501 `stop-unsupported`, 401…) or none at all is no confirmation:
 * `client.stop()` rejects with {@link StopNotConfirmedError}.
 */
export interface StopResult {
  readonly requestId: string;
  readonly outcome: StopOutcome;
  /** The stop route's answer (its body unread). */
  readonly response: Response;
}

/** Options of `client.stop()`. */
export interface StopOptions {
  /**
   * Stops the stop request itself (not the generation).
   * @default undefined
   */
  signal?: AbortSignal;
  /**
   * Where the `DELETE` goes, when the caller knows the intent's status route (the AI SDK
   * transport's `statusPath`, resolved against the chat route's answer).
   * @default `statusUrl(id)`, else `/api/status/<id>` on the intent's origin
   */
  url?: string | URL;
  /**
   * Where the reader was: the position (`<generation>.<offset>`, an event's `id`) of the
   * last part it showed. The server ends the stored answer there when its model produced
   * more by the time the stop reached it (PROTOCOL.md § 14.8), so a reload, a replay
   * and every other reader show exactly that text. Sent as `Last-Event-ID`.
   * @default undefined (the answer keeps everything produced until the stop arrived)
   */
  at?: string;
}

export interface StopDeps {
  /** The client's options, resolved. */
  readonly clientOptions: ResolvedClientOptions;
  readonly ky: KyInstance;
  /** The client's stopped intents; `undefined` without storage (nothing to keep). */
  readonly stopped: StoppedIntents | undefined;
}

/** Marks `requestId` stopped: its record (from storage, or saved lately) is kept past its settling. */
async function mark(
  { clientOptions, stopped }: StopDeps,
  requestId: string,
  known: StoredIntent | undefined,
): Promise<StoredIntent | undefined> {
  stopped?.mark(requestId);
  const { storage } = clientOptions;
  const listed = storage ? await storage.list() : [];
  const record = known ?? listed.find((intent) => intent.requestId === requestId) ?? stopped?.recent.get(requestId);
  if (storage && record && !record.stopped) await storage.save({ ...record, stopped: true });
  return record;
}

/** The status route's problems for an intent that ended without an answer to replay (§ 8, § 5.7, § 14.8). */
const SETTLED_CODES = new Set<string>(['intent-failed', 'intent-stopped', 'intent-exhausted'] satisfies ProblemCode[]);

function outcomeOf(response: Response, code: string | undefined): StopOutcome | undefined {
  if (response.status === 202) return 'stopping';
  // Only the protocol's 404: a route that is not there answers 404 too, and stops nothing.
  if (response.status === 404 && code === 'intent-not-found') return 'unknown';
  // The status route's answer for an ended intent: its stored answer, or a failed one.
  if (response.headers.has(REPLAYED_HEADER) || SETTLED_CODES.has(code ?? '')) {
    return 'settled';
  }
  return undefined;
}

/** The answer's body: JSON when it says so and parses, else its text; none when empty or unreadable. */
async function bodyOf(response: Response): Promise<unknown> {
  const text = await response
    .clone()
    .text()
    .catch(() => undefined);
  if (!text) return undefined;
  if (!isJsonContentType(response.headers.get('content-type'))) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** `client.stop()`. */
export type Stop = (target: string | StoredIntent, options?: StopOptions) => Promise<StopResult>;

/** The stopping capability, as the client calls it (`Stopping` names it to the options). */
export interface StoppingCapability {
  /** Builds one client's `stop`. */
  readonly attach: (deps: StopDeps) => Stop;
}

export function createStop(deps: StopDeps): Stop {
  const { clientOptions, ky } = deps;
  return async function stop(target: string | StoredIntent, options: StopOptions = {}): Promise<StopResult> {
    const known = typeof target === 'object' && target !== null ? target : undefined;
    const requestId = known ? known.requestId : target;
    if (typeof requestId !== 'string' || !isValidRequestId(requestId)) {
      invalidOption('requestId', '8–128 characters of [A-Za-z0-9_-], or a StoredIntent', target);
    }
    const { at } = options;
    if (at !== undefined && !parsePosition(at)) invalidOption('at', 'a position "<generation>.<offset>"', at);
    const context = { requestId, attempts: 0, polls: 0 };
    // A stop called off before it began sends nothing and marks nothing.
    if (options.signal?.aborted) throw new AbortError(context, options.signal.reason);
    // Marked before the request leaves: the intent's stream may end (and settle) first.
    const record = await mark(deps, requestId, known).catch(() => known);
    const url =
      options.url ??
      clientOptions.statusUrl?.(requestId) ??
      (record
        ? new URL(`${DEFAULT_STATUS_PATH}/${encodeURIComponent(requestId)}`, record.url)
        : `${DEFAULT_STATUS_PATH}/${encodeURIComponent(requestId)}`);
    let response: Response;
    let data: unknown;
    try {
      response = await ky(url, {
        method: 'DELETE',
        headers: {
          ...clientOptions.idHeaders(requestId),
          ...(at && { [LAST_EVENT_ID_HEADER]: at }),
        },
        retry: {
          limit: clientOptions.retry.limit,
          methods: ['delete'],
          statusCodes: STOP_RETRY_STATUSES,
          backoffLimit: clientOptions.retry.backoffLimit,
        },
        timeout: clientOptions.timeout,
        // ky retries only the statuses it throws for; every other answer is read below.
        throwHttpErrors: (status) => STOP_RETRY_STATUSES.includes(status),
        ...(options.signal && { signal: options.signal }),
      });
      data = await bodyOf(response);
    } catch (error) {
      if (options.signal?.aborted) throw new AbortError(context, options.signal.reason);
      // A retried status that outlasted the retries: ky read its body.
      if (!isHTTPError(error))
        throw new StopNotConfirmedError(undefined, context, true, new ConnectionError(context, error));
      response = error.response;
      data = error.data;
    }
    const outcome = outcomeOf(response, rawProblemCode(data));
    if (outcome) return { requestId, outcome, response };
    // 405, a 404 that is not the protocol's, 501 stop-unsupported, 401, a store failure
    // past the retries: the stop did not happen.
    throw new StopNotConfirmedError(
      { response, data, problem: asProblem(data) },
      context,
      STOP_RETRY_STATUSES.includes(response.status),
    );
  };
}

const capability: StoppingCapability = { attach: createStop };

/**
 * What `client.stop()` is built from: hand it to the client, `createClient({ stopping })`.
 * An app that does not import it bundles none of it.
 */
export const stopping: Stopping = capability;
