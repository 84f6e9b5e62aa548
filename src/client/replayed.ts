import { isTrueHeader } from '../core/headers.js';

/**
 * Whether `response` is a replay of a stored answer (PROTOCOL.md § 7.3): `true` under any of
 * `names`, the client's `replayedHeaders` (its `replayedHeader` option and Stripe's).
 */
export const isReplayed = (response: Response, names: readonly string[]): boolean =>
  names.some((name) => isTrueHeader(response.headers.get(name)));
