import { PROBLEM_JSON, REQUEST_ID_HEADER } from '../core/headers.js';
import { PROBLEMS, type ProblemCode, type ProblemDetails, problemType } from '../core/problems.js';

/** What a problem+json answer carries besides its code. */
export interface ProblemInit {
  /** The answer's status; the code's own (`src/core/problems.ts`) when not given. */
  readonly status?: number;
  readonly title: string;
  readonly detail?: string;
  readonly requestId?: string;
  /** Extra response headers (`Retry-After`, `Location`, …). */
  readonly headers?: HeadersInit;
  /** Extension members of the problem (RFC 9457 § 3.2), e.g. `answeredStatus`. */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/** The code of each problem answer made here, for whoever reports on it (request-meter.ts). */
const codes = new WeakMap<Response, ProblemCode>();

/** The protocol code of a problem answer made by {@link problemResponse}, else `undefined`. */
export function problemCodeOf(response: Response): ProblemCode | undefined {
  return codes.get(response);
}

/** An RFC 9457 problem+json `Response` with one of the protocol's stable codes. */
export function problemResponse(code: ProblemCode, init: ProblemInit): Response {
  const status = init.status ?? PROBLEMS[code].status;
  const body: ProblemDetails = { type: problemType(code), title: init.title, status, code };
  if (init.detail !== undefined) body.detail = init.detail;
  if (init.requestId !== undefined) body.requestId = init.requestId;
  if (init.extensions !== undefined) Object.assign(body, init.extensions);
  const headers = new Headers(init.headers);
  headers.set('Content-Type', PROBLEM_JSON);
  headers.set('Cache-Control', 'no-store');
  if (init.requestId !== undefined) headers.set(REQUEST_ID_HEADER, init.requestId);
  const response = new Response(JSON.stringify(body), { status, headers });
  codes.set(response, code);
  return response;
}
