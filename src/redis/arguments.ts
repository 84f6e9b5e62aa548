/**
 * Checks of what a caller hands `RedisStore` before it becomes a script argument: a bad
 * value is a `TypeError` naming it, and nothing reaches Redis.
 */
import { stringOption } from '../core/options.js';
import type { LogAppend } from '../server/store/stream-store.js';

/** The `prefix` option of a store over `scripts/`: a string without `{` or `}`, which would shadow its keys' Cluster hash tag. */
export function prefixOption(value: unknown, library: string): string {
  return stringOption(value, 'prefix', 'a string without `{` or `}`', (text) => !/[{}]/.test(text), library);
}

/** A duration in whole milliseconds (rounded up: Redis expiries are integers), as an argument. */
export function checkMs(name: string, value: number, min: number): string {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > Number.MAX_SAFE_INTEGER) {
    throw new TypeError(`answer-once/redis: expected \`${name}\` to be a number ≥ ${min} (ms), got ${String(value)}`);
  }
  return String(Math.ceil(value));
}

export function checkText(name: string, value: string, nonEmpty = false): string {
  if (typeof value !== 'string' || (nonEmpty && value === '')) {
    throw new TypeError(`answer-once/redis: expected \`${name}\` to be a ${nonEmpty ? 'non-empty ' : ''}string`);
  }
  return value;
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** An append's batch, checked field by field. */
export function checkBatch(batch: LogAppend): LogAppend {
  if (typeof batch !== 'object' || batch === null)
    throw new TypeError('answer-once/redis: expected an append `batch` object');
  const { offset, data, head, retainBytes, continues } = batch;
  if (!isCount(offset))
    throw new TypeError(`answer-once/redis: expected \`offset\` to be an integer ≥ 0, got ${String(offset)}`);
  if (!(data instanceof Uint8Array)) throw new TypeError('answer-once/redis: expected `data` to be a Uint8Array');
  if (head !== undefined && typeof head !== 'string')
    throw new TypeError('answer-once/redis: expected `head` to be a string');
  if (retainBytes !== undefined && !isCount(retainBytes)) {
    throw new TypeError(`answer-once/redis: expected \`retainBytes\` to be an integer ≥ 0, got ${String(retainBytes)}`);
  }
  if (continues !== undefined && !(isCount(continues) && continues > 0)) {
    throw new TypeError(`answer-once/redis: expected \`continues\` to be a positive integer, got ${String(continues)}`);
  }
  return batch;
}
