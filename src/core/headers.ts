/**
 * Header names of the answer-once protocol (PROTOCOL.md § 2 for the ID, § 6–8 for the answers).
 * HTTP header names are case-insensitive; these are the spellings we send.
 */

/** An HTTP token (RFC 9110 § 5.6.2): what a header name or a method name is made of. */
export const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The intent's ID, sent on every attempt and status poll. The default request header. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The IETF httpapi draft's header; its value is a structured-field string (`"…"`). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Set to `true` on a response that replays a stored answer instead of running the work. */
export const REPLAYED_HEADER = 'X-Idempotent-Replayed';

/** Stripe's spelling of {@link REPLAYED_HEADER}; recognised by the client. */
export const STRIPE_REPLAYED_HEADER = 'Idempotent-Replayed';

/** `Prefer: wait=N` asks the server to hold a 202 up to N seconds (RFC 7240). */
export const PREFER_HEADER = 'Prefer';

/** Echoes the preference the server applied (`wait=N`). */
export const PREFERENCE_APPLIED_HEADER = 'Preference-Applied';

export const RETRY_AFTER_HEADER = 'Retry-After';

/** The generation an answer's body belongs to (PROTOCOL.md § 14.3); on a request, the generation a `Range` is of (§ 14.5). */
export const GENERATION_HEADER = 'X-Idempotent-Generation';

/** Set to `true` on an answer attached to a generation another attempt is still producing (§ 14.6). */
export const ATTACHED_HEADER = 'X-Idempotent-Attached';

/** Set to `true` when the position a request named was of another generation: the answer starts again (§ 14.5). */
export const RESTARTED_HEADER = 'X-Idempotent-Restarted';

/** Set to `true` on the replay of an answer stopped through the stop route (§ 14.8). */
export const STOPPED_HEADER = 'X-Idempotent-Stopped';

/** The SSE resume header: a position `<generation>.<offset>` (§ 14.5). */
export const LAST_EVENT_ID_HEADER = 'Last-Event-ID';

/** `bytes=N-`: resume a body at byte N (§ 14.5). */
export const RANGE_HEADER = 'Range';
export const LOCATION_HEADER = 'Location';

/** Media type of every error body the server writes (RFC 9457). */
export const PROBLEM_JSON = 'application/problem+json';

/**
 * Whether a flag header of the protocol (`X-Idempotent-Replayed`, `-Attached`, `-Stopped`,
 * `-Restarted`) says `true`: case-insensitive, surrounding spaces ignored.
 */
export function isTrueHeader(value: string | null | undefined): boolean {
  return value?.trim().toLowerCase() === 'true';
}
