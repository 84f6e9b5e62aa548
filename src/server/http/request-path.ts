/** A request's path and its query, the two parts of its URL the router and the fingerprint read. */
export interface RequestPath {
  /** The URL's `pathname`. */
  readonly pathname: string;
  /** The URL's `search`: `""` or `?` and the query. */
  readonly search: string;
}

/**
 * The path and query of `request`'s URL, as `new URL(request.url)` gives them. This
 * runtime's own `Request` serializes its parsed URL, so an http(s) URL it gives reads as
 * `scheme://authority/path?query#fragment`, every `/`, `?` and `#` before the path
 * percent-encoded: the path starts at the first `/` after `://`, the query at the first
 * `?`, and no parse is needed. The URL of another Fetch implementation, or of a subclass
 * with a `url` of its own, may not be serialized so: it is parsed.
 */
export function requestPath(request: Request): RequestPath {
  const { url } = request;
  const authority = url.startsWith('https://') ? 8 : url.startsWith('http://') ? 7 : -1;
  const start = authority === -1 ? -1 : url.indexOf('/', authority);
  if (start === -1 || Object.getPrototypeOf(request) !== Request.prototype) {
    const { pathname, search } = new URL(url);
    return { pathname, search };
  }
  const hash = url.indexOf('#', start);
  const end = hash === -1 ? url.length : hash;
  const query = url.indexOf('?', start);
  if (query === -1 || query > end) return { pathname: url.slice(start, end), search: '' };
  // A bare `?` is no query (URL's `search` is empty then).
  return { pathname: url.slice(start, query), search: query + 1 === end ? '' : url.slice(query, end) };
}
