/**
 * Decoding script replies into store records. Replies arrive as node-redis decoded them
 * (strings, or Buffers under a Buffer type mapping; numbers, or bigints / strings under a
 * number type mapping); anything a store script cannot produce is a `RedisStoreReplyError`.
 */
import { toLocalDeadline } from '../server/store/deadline.js';
import type { IdempotencyRecord } from '../server/store/store.js';
import { RedisStoreReplyError } from './errors.js';

const decoder = new TextDecoder();

/** A bulk-string reply as text, `null` for a nil reply. */
export function text(value: unknown): string | null {
  if (value == null) return null;
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return decoder.decode(value);
  throw new RedisStoreReplyError(`answer-once/redis: expected a string reply, got ${typeof value}`);
}

/** An integer reply, or an integer stored as text (the record's time fields); nil or empty text is none. */
export function integer(value: unknown): number {
  const source = typeof value === 'number' || typeof value === 'bigint' ? value : text(value);
  const number = source === null || source === '' ? Number.NaN : Number(source);
  if (!Number.isSafeInteger(number)) {
    throw new RedisStoreReplyError(`answer-once/redis: expected an integer reply, got ${String(value)}`);
  }
  return number;
}

/** A script's array reply. */
export function array(value: unknown, minLength: number): readonly unknown[] {
  if (!Array.isArray(value) || value.length < minLength) {
    throw new RedisStoreReplyError('answer-once/redis: unexpected script reply shape');
  }
  return value;
}

function required(value: unknown, field: string): string {
  const decoded = text(value);
  if (decoded === null) throw new RedisStoreReplyError(`answer-once/redis: record has no ${field}`);
  return decoded;
}

/**
 * Decodes `{_, now, s, f, t, l, c, r, e, d, g, x, n, p, a, v}` (the read script's reply, and a
 * refused acquire's). `leaseExpiresAt` is reported in this process's clock; the other
 * times are Redis's, as stored. `generation` is there for every record written since 0.2
 * (a 0.1 record has none); `stopRequested` only when a stop was asked, `stopAt` when it
 * named a position of the record's answer generation; `continues` once the record
 * continued an earlier generation's answer (§ 14.12); `avoided` once a call its answer
 * avoided was counted; `runs` is 1 for a record written before
 * it was counted (it ran at least once).
 */
export function decodeRecord(reply: unknown, receivedAt: number): IdempotencyRecord | null {
  const [, now, s, f, t, l, c, r, e, d, g, x, n, p, a, v] = array(reply, 3);
  const state = text(s);
  if (state === null) return null;
  const fingerprint = required(f, 'fingerprint');
  const createdAt = integer(c);
  const runs = n == null ? 1 : integer(n);
  const generation = {
    ...(g == null ? {} : { generation: integer(g) }),
    ...(a == null ? {} : { continues: integer(a) }),
  };
  switch (state) {
    case 'processing':
      return {
        state,
        fingerprint,
        token: required(t, 'token'),
        leaseExpiresAt: toLocalDeadline(integer(l), integer(now), receivedAt),
        createdAt,
        runs,
        ...generation,
        ...(text(x) === '1' ? { stopRequested: true } : {}),
        ...(p == null ? {} : { stopAt: integer(p) }),
      };
    case 'completed':
      return {
        state,
        fingerprint,
        result: required(r, 'result'),
        createdAt,
        completedAt: integer(d),
        runs,
        ...generation,
        ...(text(v) === '1' ? { avoided: true } : {}),
      };
    case 'failed':
      return { state, fingerprint, error: required(e, 'error'), createdAt, failedAt: integer(d), runs, ...generation };
    default:
      throw new RedisStoreReplyError(`answer-once/redis: record has unknown state "${state}"`);
  }
}
