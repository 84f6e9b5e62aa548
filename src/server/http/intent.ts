import { encodeKey, type Scope } from '../store/key.js';
import { fingerprintRequest } from './fingerprint.js';
import { type RequestedPosition, readPosition } from './position.js';
import { readRequestBody } from './request-body.js';
import { readRequestId } from './request-id.js';
import type { RequestPath } from './request-path.js';
import { resolveScope, scopeOfPath } from './scope.js';
import type { HandlerSetup } from './setup.js';
import { appliedWaitMs, type Subject, subjectOf } from './subject.js';

/**
 * What every route reads of an intent's request: its ID, whose it is, its key, the wait
 * it asks for and the position of the answer it already has, and who its events are about.
 */
export interface RoutedIntent extends Subject {
  readonly requestId: string;
  readonly scope: Scope;
  readonly key: string;
  /** The applied `Prefer: wait` in milliseconds (already capped), or 0. */
  readonly waitMs: number;
  /** The position of the answer the request already has (PROTOCOL.md § 14.5). */
  readonly position: RequestedPosition | undefined;
}

/** One request outside the status route, read once: also its body and fingerprint. */
export interface Intent extends RoutedIntent {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly fingerprint: string;
}

/** Reads an intent from a request (its path read once by the router), or the app's own answer from its `scope`. */
export async function parseIntent(request: Request, path: RequestPath, setup: HandlerSetup): Promise<Intent | Response> {
  const { options } = setup;
  const requestId = readRequestId(request.headers);
  const scope = await resolveScope(request, requestId, options);
  if (scope instanceof Response) return scope;
  const body = await readRequestBody(request, options.maxBodyBytes, requestId);
  const { pathname, search } = path;
  return {
    ...routed(request, requestId, scope, setup),
    body,
    fingerprint: await fingerprintRequest(request.method, pathname + search, body),
  };
}

/**
 * Reads the intent a status-route request names by the ID in its path (the status and
 * stop routes), or the app's own answer from its `scope`.
 */
export async function parseRoutedIntent(
  request: Request,
  requestId: string,
  setup: HandlerSetup,
): Promise<RoutedIntent | Response> {
  const scope = await scopeOfPath(request, requestId, setup.options);
  return scope instanceof Response ? scope : routed(request, requestId, scope, setup);
}

function routed(request: Request, requestId: string, scope: Scope, setup: HandlerSetup): RoutedIntent {
  const { options } = setup;
  return {
    requestId,
    scope,
    key: encodeKey(scope, requestId, options.keyPrefix),
    waitMs: appliedWaitMs(request, options),
    position: readPosition(request.headers),
    ...subjectOf(requestId, scope, options, setup.meter),
  };
}
