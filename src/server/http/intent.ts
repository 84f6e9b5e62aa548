import { PREFER_HEADER } from '../../core/headers.js';
import { parsePreferWait } from '../../core/prefer.js';
import { isValidRequestId } from '../../core/request-id.js';
import { readBodyLimited } from '../format/body.js';
import { InvalidRequestIdError, ScopeError } from '../errors.js';
import { type Reporter, reporter } from '../events.js';
import type { WaitUntil } from './background.js';
import { fingerprintRequest } from './fingerprint.js';
import type { ResolvedHandlerOptions } from './handler-options.js';
import type { ResolvedLeaseOptions } from '../run/lease-options.js';
import { assertScope, encodeKey, type Scope } from '../store/key.js';
import { readPosition, type RequestedPosition } from './position.js';
import { readRequestId } from './request-id.js';
import type { RequestMeter } from './request-meter.js';
import type { StoreCallContext } from '../store/store-call.js';
import type { StreamStore } from '../store/stream-store.js';

/** What one idempotency handler resolved once: its options, and its store's answer logs if it keeps them. */
export interface HandlerSetup {
  readonly options: ResolvedHandlerOptions;
  /** The store, when it keeps answer logs: every answer streams through (PROTOCOL.md § 14). */
  readonly streamStore: StreamStore | undefined;
  /** The options' lease fields alone: what each run is given (`leaseOf`). */
  readonly lease: ResolvedLeaseOptions;
  /** This request's meter, when the app listens for events (request-meter.ts). */
  readonly meter?: RequestMeter | undefined;
  /** Keeps what this request's run does after its answer alive: the runtime's `waitUntil` (background.ts). */
  readonly keep?: WaitUntil | undefined;
}

/** One request outside the status route, read once: whose intent it is, its key, body and fingerprint. */
export interface Intent {
  readonly request: Request;
  readonly requestId: string;
  readonly scope: Scope;
  readonly key: string;
  readonly body: Uint8Array<ArrayBuffer>;
  readonly fingerprint: string;
  /** The applied `Prefer: wait` in milliseconds (already capped), or 0. */
  readonly waitMs: number;
  /** The position of the answer the request already has (PROTOCOL.md § 14.5). */
  readonly position: RequestedPosition | undefined;
  readonly report: Reporter;
  readonly context: StoreCallContext;
}

/** Reads an intent from a request, or the app's own answer from its `scope`. */
export async function parseIntent(request: Request, setup: HandlerSetup): Promise<Intent | Response> {
  const { options } = setup;
  const requestId = readRequestId(request.headers);
  const scope = await resolveScope(request, requestId, options);
  if (scope instanceof Response) return scope;
  const body = await readBodyLimited(request, options.maxBodyBytes, requestId);
  const { pathname, search } = new URL(request.url);
  return {
    request,
    requestId,
    scope,
    key: encodeKey(scope, requestId, options.keyPrefix),
    body,
    fingerprint: await fingerprintRequest(request.method, pathname + search, body),
    waitMs: appliedWaitMs(request, options),
    position: readPosition(request.headers),
    ...subjectOf(requestId, scope, options, setup.meter),
  };
}

/** The scope of a status-route request whose ID came from the path (checked here). */
export async function scopeOf(
  request: Request,
  requestId: string,
  options: ResolvedHandlerOptions,
): Promise<Scope | Response> {
  if (!isValidRequestId(requestId)) {
    throw new InvalidRequestIdError('answer-once: a request ID is 8–128 characters of A–Z, a–z, 0–9, "_" and "-".');
  }
  return resolveScope(request, requestId, options);
}

/** The scope, or the app's own answer; a throwing or invalid `scope` is a reported 500 (`ScopeError`). */
async function resolveScope(
  request: Request,
  requestId: string,
  options: ResolvedHandlerOptions,
): Promise<Scope | Response> {
  let scope: unknown;
  try {
    scope = await options.scope(request);
    if (scope instanceof Response) return scope;
    assertScope(scope);
    return scope;
  } catch (error) {
    reporter(options.onEvent, { requestId })({ type: 'scope-error', error });
    throw new ScopeError('answer-once: `scope` failed.', { cause: error, requestId });
  }
}

/** The reporter and store-call context of one intent's events (with its user if the app opts in). */
export function subjectOf(
  requestId: string,
  scope: Scope,
  options: ResolvedHandlerOptions,
  meter?: RequestMeter,
): { report: Reporter; context: StoreCallContext } {
  const subject = options.eventsIncludeUser ? { requestId, user: scope.user } : { requestId };
  const report = meter ? meter.reporter(subject) : reporter(options.onEvent, subject);
  return {
    report,
    context: { report, timeoutMs: options.storeTimeoutMs, retryAfterSeconds: options.retryAfterSeconds, requestId },
  };
}

/** The request's `Prefer: wait` in milliseconds, capped at `maxWaitMs`; 0 without one. */
export function appliedWaitMs(request: Request, options: ResolvedHandlerOptions): number {
  const seconds = parsePreferWait(request.headers.get(PREFER_HEADER));
  return seconds === undefined ? 0 : Math.min(seconds * 1000, options.maxWaitMs);
}
