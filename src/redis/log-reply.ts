/**
 * Decoding the answer log's script replies (scripts/append.ts, scripts/read-log.ts).
 * They run on the Buffer-mapped client, so bytes arrive as Buffers, exactly as appended.
 */
import { concat } from '../core/bytes.js';
import type { LogAppendResult, LogSnapshot } from '../server/store/stream-store.js';
import { RedisStoreReplyError } from './errors.js';
import { array, decodeRecord, integer, text } from './reply.js';

const EMPTY: Uint8Array = new Uint8Array(0);

/** `{1, length, stopRequested}` or `{0, reason}`; `head` (a first append without one) is a caller bug. */
export function decodeAppend(reply: unknown): LogAppendResult {
  const [ok, second, third] = array(reply, 2);
  if (integer(ok) === 1) return { ok: true, length: integer(second), stopRequested: integer(third) === 1 };
  const reason = text(second);
  if (reason === 'head') throw new TypeError('answer-once/redis: the first append of a generation needs its `head`.');
  if (reason === 'fenced' || reason === 'gone' || reason === 'offset') return { ok: false, reason };
  throw new RedisStoreReplyError(`answer-once/redis: append answered an unknown reason "${String(reason)}"`);
}

function bytesOf(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  // A client whose mapping still gives strings (never ours): only safe for UTF-8 bytes.
  if (typeof value === 'string') return new TextEncoder().encode(value);
  throw new RedisStoreReplyError('answer-once/redis: expected the log’s bytes as a blob string');
}

/** `{record}` or `{record, generation, head, length, offset, bytes…}`: the whole log from `offset`. */
export function decodeSnapshot(reply: unknown, receivedAt: number): LogSnapshot {
  const snapshot = decodeLogPage(reply, receivedAt);
  if (snapshot.log && snapshot.log.offset + snapshot.log.data.byteLength !== snapshot.log.length) {
    throw new RedisStoreReplyError('answer-once/redis: the log’s bytes do not add up to its length');
  }
  return snapshot;
}

/** A capped read's reply: the log's bytes from `offset`, possibly fewer than up to its `length`. */
export function decodeLogPage(reply: unknown, receivedAt: number): LogSnapshot {
  const parts = array(reply, 1);
  const record = decodeRecord(parts[0], receivedAt);
  if (!record || parts.length < 5) return { record, log: null };
  const head = text(parts[2]);
  if (head === null) throw new RedisStoreReplyError('answer-once/redis: log without a head');
  const length = integer(parts[3]);
  const offset = integer(parts[4]);
  const chunks = parts.slice(5).map(bytesOf);
  const data = chunks.length === 1 ? (chunks[0] ?? EMPTY) : concat(chunks);
  if (offset + data.byteLength > length) {
    throw new RedisStoreReplyError('answer-once/redis: the log’s bytes run past its length');
  }
  return { record, log: { generation: integer(parts[1]), head, length, offset, data } };
}
