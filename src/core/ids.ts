import { ulid } from 'ulid';

/** What a request ID may look like: 8–128 characters of `[A-Za-z0-9_-]`. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_-]{8,128}$/;

/** Mints the ID of one user intent: a ULID (26 characters, sortable by creation time). */
export function newRequestId(): string {
  return ulid();
}

/** True when `id` is a request ID the protocol accepts. */
export function isValidRequestId(id: string): boolean {
  return REQUEST_ID_PATTERN.test(id);
}
