/**
 * What a stored intent must be before `resume()`, `resend()` or `stream()` sends it
 * again. Storage is data, not instructions: a record someone else wrote (a hand-written
 * `localStorage` entry, a `webStorageAdapter` over foreign storage) must not make the
 * client send its own credentials (the headers its ky hooks add) anywhere else than where
 * this client sends, nor send something the client would never have written.
 */
import { HTTP_TOKEN } from '../../core/headers.js';
import { isValidRequestId } from '../../core/request-id.js';

/** A header value Fetch would send as is: no CR, LF or NUL. */
const FIELD_VALUE = /^[^\r\n\0]*$/;

const isPair = (value: unknown): value is [string, string] =>
  Array.isArray(value) &&
  value.length === 2 &&
  typeof value[0] === 'string' &&
  HTTP_TOKEN.test(value[0]) &&
  typeof value[1] === 'string' &&
  FIELD_VALUE.test(value[1]);

/**
 * Why `value` is no intent this client may send again, or `undefined` when it is one.
 * `origins`: where the client sends (its `baseUrl`'s origin, the page's); `undefined` when
 * it knows none (a client with neither), then any http(s) origin is taken.
 */
export function storedIntentProblem(value: unknown, origins: readonly string[] | undefined): string | undefined {
  if (typeof value !== 'object' || value === null) return 'it is not an object';
  const record = value as Record<string, unknown>;
  if (record.v !== 1) return 'its format version `v` is not 1';
  if (typeof record.requestId !== 'string' || !isValidRequestId(record.requestId))
    return '`requestId` is not 8–128 characters of [A-Za-z0-9_-]';
  if (typeof record.input !== 'string') return '`input` is not a string';
  let url: URL;
  try {
    url = new URL(String(record.url));
  } catch {
    return '`url` is not an absolute URL';
  }
  if (typeof record.url !== 'string' || (url.protocol !== 'https:' && url.protocol !== 'http:'))
    return '`url` is not an http(s) URL';
  if (origins !== undefined && !origins.includes(url.origin))
    return `\`url\` is on ${url.origin}, not on the origin this client sends to (${origins.join(', ')})`;
  if (typeof record.method !== 'string' || !HTTP_TOKEN.test(record.method)) return '`method` is not a method name';
  if (!Array.isArray(record.headers) || !record.headers.every(isPair))
    return '`headers` is not an array of [name, value] string pairs';
  if (record.body !== undefined && typeof record.body !== 'string') return '`body` is not a string';
  if (typeof record.createdAt !== 'number' || !Number.isFinite(record.createdAt)) return '`createdAt` is not a time';
  if (record.stopped !== undefined && record.stopped !== true) return '`stopped` is not true';
  return undefined;
}
