import type { LogAppend, LogPosition, LogSlice } from '../store/stream-store.js';
import { LOG_LINGER_MS } from '../store/stream-store.js';

interface Chunk {
  readonly offset: number;
  readonly bytes: Uint8Array;
}

interface Log {
  readonly generation: number;
  readonly head: string;
  length: number;
  readonly chunks: Chunk[];
  /** Set when the record settled: the log is dropped after this (store clock). */
  lingerUntil: number | undefined;
}

/**
 * The answer logs of a {@link MemoryStore}, one per key: the bytes of one generation
 * in append order. It checks nothing about tokens — the store fences first and calls it
 * only for the holder — and keeps no timer: lingering logs are dropped when touched.
 */
export class MemoryLogs {
  readonly #logs = new Map<string, Log>();

  /**
   * Appends for the holder of a record of `generation` that continues `continued` (when
   * set, § 14.12); `false` when `batch.offset` is not the length of the log it goes to, or
   * `batch.continues` names a log that is not kept.
   */
  append(
    key: string,
    generation: number,
    continued: number | undefined,
    batch: LogAppend,
  ): { readonly length: number } | false {
    const target = continued ?? batch.continues ?? generation;
    if (batch.continues !== undefined && batch.continues !== target) return false;
    /** A first continuing append: the log it continues must be there, as long as `offset`. */
    const continuing = batch.continues !== undefined && continued === undefined;
    let log = this.#logs.get(key);
    if (log?.generation !== target) {
      if (continuing || batch.offset !== 0) return false;
      if (typeof batch.head !== 'string') {
        throw new TypeError('answer-once: the first append of a generation needs its `head`.');
      }
      log = { generation: target, head: batch.head, length: 0, chunks: [], lingerUntil: undefined };
      this.#logs.set(key, log);
    } else if (batch.offset !== log.length) {
      return false;
    }
    if (batch.data.byteLength > 0) {
      log.chunks.push({ offset: log.length, bytes: batch.data.slice() });
      log.length += batch.data.byteLength;
    }
    const retain = batch.retainBytes;
    if (retain !== undefined) {
      const first = log.chunks[0];
      let kept = first ? log.length - first.offset : 0;
      while (log.chunks.length > 1 && kept > retain) kept -= log.chunks.shift()?.bytes.byteLength ?? 0;
    }
    return { length: log.length };
  }

  /** The kept bytes from `from` (see `StreamStore.read`), or `null` when `key` has no log. */
  slice(key: string, from: LogPosition | null, now: number): LogSlice | null {
    const log = this.#live(key, now);
    if (!log) return null;
    const start = log.chunks[0]?.offset ?? log.length;
    const wanted = from?.generation === log.generation ? Math.min(from.offset, log.length) : 0;
    const offset = Math.max(start, wanted);
    return { generation: log.generation, head: log.head, length: log.length, offset, data: this.#bytes(log, offset) };
  }

  /**
   * The record settled: keep the log readable `LOG_LINGER_MS` more, never past `expiresAt`.
   * A log that already lingered out (an older generation's) stays gone, as in Redis.
   */
  settle(key: string, now: number, expiresAt: number): void {
    const log = this.#live(key, now);
    if (log) log.lingerUntil = Math.min(now + LOG_LINGER_MS, expiresAt);
  }

  /** The record is gone (expired, evicted): so is its log. */
  drop(key: string): void {
    this.#logs.delete(key);
  }

  /** The log of `key` unless it lingered out (then it is dropped now: no timer drops it). */
  #live(key: string, now: number): Log | undefined {
    const log = this.#logs.get(key);
    if (log?.lingerUntil === undefined || log.lingerUntil > now) return log;
    this.#logs.delete(key);
    return undefined;
  }

  /** Bytes `[offset, length)`: from the last chunk that starts at or before `offset` (earlier ones add nothing). */
  #bytes(log: Log, offset: number): Uint8Array {
    let index = log.chunks.length - 1;
    while (index > 0 && (log.chunks[index]?.offset ?? 0) > offset) index -= 1;
    const parts = log.chunks.slice(index);
    const out = new Uint8Array(log.length - offset);
    let at = 0;
    for (const { offset: chunkOffset, bytes } of parts) {
      const part = chunkOffset < offset ? bytes.subarray(offset - chunkOffset) : bytes;
      out.set(part, at);
      at += part.byteLength;
    }
    return out;
  }
}
