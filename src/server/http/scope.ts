import { isValidRequestId } from '../../core/request-id.js';
import { InvalidRequestIdError, ScopeError } from '../errors.js';
import { reporter } from '../events.js';
import { assertScope, type Scope } from '../store/key.js';
import type { ResolvedHandlerOptions } from './handler-options.js';

/** The scope of a status-route request whose ID came from the path (checked here). */
export async function scopeOfPath(
  request: Request,
  requestId: string,
  options: ResolvedHandlerOptions,
): Promise<Scope | Response> {
  if (!isValidRequestId(requestId)) {
    throw new InvalidRequestIdError('answer-once: a request ID is 8–128 characters of A–Z, a–z, 0–9, "_" and "-".');
  }
  return resolveScope(request, requestId, options);
}

/**
 * Whose intent it is (PROTOCOL.md § 3): the app's `scope(request)`, or its own answer; a
 * throwing or invalid `scope` is a reported 500 (`ScopeError`).
 */
export async function resolveScope(
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
