/**
 * Checks of what a caller hands `PostgresStore` before it becomes a statement's value: a
 * bad value is a `TypeError` naming it, and nothing reaches the database.
 */
import type { LogAppend, LogPosition } from '../server/store/stream-store.js';

const LIBRARY = 'answer-once/postgres';

/** A duration in whole milliseconds (rounded up), within what a `bigint` column and a timer hold. */
export function checkMs(name: string, value: number, min: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > Number.MAX_SAFE_INTEGER) {
    throw new TypeError(`${LIBRARY}: expected \`${name}\` to be a number ≥ ${min} (ms), got ${String(value)}`);
  }
  return Math.ceil(value);
}

export function checkText(name: string, value: string, nonEmpty = false): string {
  if (typeof value !== 'string' || (nonEmpty && value === '')) {
    throw new TypeError(`${LIBRARY}: expected \`${name}\` to be a ${nonEmpty ? 'non-empty ' : ''}string`);
  }
  return value;
}

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** A read's `from`: null, or a position of integers with a non-negative offset. */
export function checkPosition(name: string, position: LogPosition | null): void {
  if (position === null) return;
  if (typeof position !== 'object' || !Number.isSafeInteger(position.generation) || !isCount(position.offset)) {
    throw new TypeError(`${LIBRARY}: expected \`${name}\` to be null or { generation, offset } of integers`);
  }
}

/** An append's batch, checked field by field. */
export function checkBatch(batch: LogAppend): LogAppend {
  if (typeof batch !== 'object' || batch === null) throw new TypeError(`${LIBRARY}: expected an append \`batch\` object`);
  const { offset, data, head, retainBytes, continues } = batch;
  if (!isCount(offset)) throw new TypeError(`${LIBRARY}: expected \`offset\` to be an integer ≥ 0, got ${String(offset)}`);
  if (!(data instanceof Uint8Array)) throw new TypeError(`${LIBRARY}: expected \`data\` to be a Uint8Array`);
  if (head !== undefined && typeof head !== 'string') throw new TypeError(`${LIBRARY}: expected \`head\` to be a string`);
  if (retainBytes !== undefined && !isCount(retainBytes)) {
    throw new TypeError(`${LIBRARY}: expected \`retainBytes\` to be an integer ≥ 0, got ${String(retainBytes)}`);
  }
  if (continues !== undefined && !(isCount(continues) && continues > 0)) {
    throw new TypeError(`${LIBRARY}: expected \`continues\` to be a positive integer, got ${String(continues)}`);
  }
  return batch;
}
