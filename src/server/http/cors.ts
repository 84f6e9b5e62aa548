import * as protocol from '../../core/headers.js';
import { invalidOption, numberOption } from '../../core/options.js';
import type { HandleOptions } from './background.js';

/** Options of {@link withCors} and the handler's `cors` option. */
export interface CorsOptions {
  /**
   * Which origins may call: `'*'`, one origin, a list, or a predicate. The origin
   * `null` (sandboxed iframes, `file:`, some redirects) is never allowed, whatever this says.
   * @default '*'
   */
  origin?: string | readonly string[] | ((origin: string) => boolean);
  /**
   * Send `Access-Control-Allow-Credentials: true` (cookies); the origin is then echoed, never `*`.
   * Needs an explicit `origin` (one origin, a list or a predicate): with `'*'` any site
   * could read a signed-in user's answers, so that configuration throws at creation.
   * @default false
   */
  credentials?: boolean;
  /**
   * Request headers allowed besides the protocol's (`X-Request-Id`, `Idempotency-Key`,
   * `Prefer`, `Content-Type`, `Authorization`).
   * @default []
   */
  allowHeaders?: readonly string[];
  /**
   * Response headers exposed besides the protocol's (`X-Idempotent-Replayed`, `Location`,
   * `Retry-After`, `X-Request-Id`, `Preference-Applied`).
   * @default []
   */
  exposeHeaders?: readonly string[];
  /**
   * Methods a preflight allows.
   * @default ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']
   */
  methods?: readonly string[];
  /**
   * How long a browser may cache a preflight answer, in seconds.
   * @default 600
   */
  maxAgeSeconds?: number;
}

/** The request headers the protocol needs a browser to be allowed to send. */
export const CORS_ALLOW_HEADERS = [
  protocol.REQUEST_ID_HEADER,
  protocol.IDEMPOTENCY_KEY_HEADER,
  protocol.PREFER_HEADER,
  'Content-Type',
  'Authorization',
  protocol.LAST_EVENT_ID_HEADER,
  protocol.RANGE_HEADER,
  protocol.GENERATION_HEADER,
];

/** The response headers a browser hides from scripts unless exposed. */
export const CORS_EXPOSE_HEADERS = [
  protocol.REPLAYED_HEADER,
  protocol.LOCATION_HEADER,
  protocol.RETRY_AFTER_HEADER,
  protocol.REQUEST_ID_HEADER,
  protocol.PREFERENCE_APPLIED_HEADER,
  protocol.ATTACHED_HEADER,
  protocol.GENERATION_HEADER,
  protocol.RESTARTED_HEADER,
  protocol.STOPPED_HEADER,
  'Content-Range',
];

export interface ResolvedCorsOptions {
  readonly allows: (origin: string) => boolean;
  readonly wildcard: boolean;
  readonly credentials: boolean;
  readonly allowHeaders: string;
  readonly exposeHeaders: string;
  readonly methods: string;
  readonly maxAgeSeconds: number;
}

/** The defaults of {@link CorsOptions}. */
const CORS_DEFAULTS = Object.freeze({
  origin: '*',
  credentials: false,
  allowHeaders: Object.freeze([] as string[]),
  exposeHeaders: Object.freeze([] as string[]),
  methods: Object.freeze(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  maxAgeSeconds: 600,
});

function stringList(value: unknown, option: string): readonly string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    invalidOption(option, 'a list of strings', value);
  }
  return value as readonly string[];
}

export function normalizeCorsOptions(options: CorsOptions = {}): ResolvedCorsOptions {
  const { origin = CORS_DEFAULTS.origin, credentials = CORS_DEFAULTS.credentials } = options;
  if (typeof credentials !== 'boolean') invalidOption('cors.credentials', 'a boolean', credentials);
  let allows: (candidate: string) => boolean;
  if (typeof origin === 'function') allows = origin;
  else if (typeof origin === 'string') allows = (candidate) => origin === '*' || candidate === origin;
  else if (Array.isArray(origin) && origin.every((item) => typeof item === 'string')) {
    const list = [...origin];
    allows = (candidate) => list.includes(candidate);
  } else invalidOption('cors.origin', 'a string, a list of strings or a function', origin);
  if (credentials && (origin === '*' || (Array.isArray(origin) && origin.includes('*')))) {
    invalidOption(
      'cors.origin',
      'an explicit origin, list or predicate when `cors.credentials` is true (`*` would let every site read signed-in answers)',
      origin,
    );
  }
  const allowHeaders = stringList(options.allowHeaders ?? CORS_DEFAULTS.allowHeaders, 'cors.allowHeaders');
  const exposeHeaders = stringList(options.exposeHeaders ?? CORS_DEFAULTS.exposeHeaders, 'cors.exposeHeaders');
  const methods = stringList(options.methods ?? CORS_DEFAULTS.methods, 'cors.methods');
  const maxAgeSeconds = numberOption(options.maxAgeSeconds ?? CORS_DEFAULTS.maxAgeSeconds, 'cors.maxAgeSeconds');
  const wildcard = origin === '*' && !credentials;
  return {
    // `null` is the origin of sandboxed and opaque contexts, which any site can produce:
    // never echoed (a wildcard answers `*`, which carries no credentials).
    allows: wildcard ? allows : (candidate) => candidate !== 'null' && allows(candidate),
    wildcard,
    credentials,
    allowHeaders: [...CORS_ALLOW_HEADERS, ...allowHeaders].join(', '),
    exposeHeaders: [...CORS_EXPOSE_HEADERS, ...exposeHeaders].join(', '),
    methods: methods.join(', '),
    maxAgeSeconds,
  };
}

type Handle = (request: Request, call?: HandleOptions) => Promise<Response>;

function isPreflight(request: Request): boolean {
  return request.method === 'OPTIONS' && request.headers.has('Access-Control-Request-Method');
}

/** Copies `response` with CORS headers for `origin` (responses may have immutable headers). */
function decorate(response: Response, origin: string | null, cors: ResolvedCorsOptions): Response {
  const allowed = origin !== null && cors.allows(origin);
  if (!allowed && cors.wildcard) return response;
  const headers = new Headers(response.headers);
  // Unless every origin gets `*`, the answer depends on Origin — also the one WITHOUT
  // CORS headers (Fetch § 3.2.5): else a shared cache may hand it to an allowed origin.
  if (!cors.wildcard) headers.append('Vary', 'Origin');
  if (allowed) {
    headers.set('Access-Control-Allow-Origin', cors.wildcard ? '*' : origin);
    if (cors.credentials) headers.set('Access-Control-Allow-Credentials', 'true');
    headers.set('Access-Control-Expose-Headers', cors.exposeHeaders);
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * Wraps a handler so browsers on other origins can use the protocol: answers
 * preflights (204) and exposes the headers the client reads — without which a browser
 * hides `X-Idempotent-Replayed`, `Location` and `Retry-After` from scripts. A call's
 * second argument (`{ waitUntil }`, Workers' `ctx`) reaches `handle` unchanged.
 */
export function withCors(handle: Handle, options?: CorsOptions | ResolvedCorsOptions): Handle {
  const cors = options && 'allows' in options ? options : normalizeCorsOptions(options);
  return async function handleWithCors(request: Request, call?: HandleOptions): Promise<Response> {
    const origin = request.headers.get('Origin');
    if (!isPreflight(request)) return decorate(await handle(request, call), origin, cors);
    const headers = new Headers({ Vary: 'Origin' });
    if (origin !== null && cors.allows(origin)) {
      headers.set('Access-Control-Allow-Origin', cors.wildcard ? '*' : origin);
      headers.set('Access-Control-Allow-Methods', cors.methods);
      headers.set('Access-Control-Allow-Headers', cors.allowHeaders);
      headers.set('Access-Control-Max-Age', String(cors.maxAgeSeconds));
      if (cors.credentials) headers.set('Access-Control-Allow-Credentials', 'true');
    }
    return new Response(null, { status: 204, headers });
  };
}
