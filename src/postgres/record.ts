/**
 * Decoding the store's rows into records and log slices. node-postgres hands `bigint`
 * columns over as strings and `bytea` as Buffers; anything a store statement cannot
 * produce is a `PostgresStoreReplyError`.
 */
import { toLocalDeadline } from '../server/store/deadline.js';
import type { IdempotencyRecord } from '../server/store/store.js';
import type { LogSlice } from '../server/store/stream-store.js';
import { PostgresStoreReplyError } from './errors.js';

type Row = Readonly<Record<string, unknown>>;

/** A `bigint`/`integer` column as a number. */
export function integer(value: unknown, column: string): number {
  const number = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number)) {
    throw new PostgresStoreReplyError(`answer-once/postgres: expected an integer in \`${column}\`, got ${String(value)}`);
  }
  return number;
}

function textOf(value: unknown, column: string): string {
  if (typeof value !== 'string') throw new PostgresStoreReplyError(`answer-once/postgres: the record has no \`${column}\``);
  return value;
}

/** The only row a store statement answers. */
export function onlyRow(rows: readonly Row[]): Row {
  const [row] = rows;
  if (rows.length !== 1 || row === undefined) {
    throw new PostgresStoreReplyError(`answer-once/postgres: expected one row, got ${rows.length}`);
  }
  return row;
}

/**
 * The record in `row` (null when its `state` is null: no live record). `leaseExpiresAt`
 * is reported in this process's clock; the other times are the database's, as stored.
 */
export function decodeRecord(row: Row, receivedAt: number): IdempotencyRecord | null {
  if (row.state === null || row.state === undefined) return null;
  const fingerprint = textOf(row.fingerprint, 'fingerprint');
  const createdAt = integer(row.created_at, 'created_at');
  const generation = integer(row.generation, 'generation');
  const runs = integer(row.runs, 'runs');
  // The earlier generation whose answer this one continues (§ 14.12).
  const continues =
    row.continues === null || row.continues === undefined ? {} : { continues: integer(row.continues, 'continues') };
  switch (row.state) {
    case 'processing':
      return {
        state: 'processing',
        fingerprint,
        token: textOf(row.token, 'token'),
        leaseExpiresAt: toLocalDeadline(
          integer(row.lease_expires_at, 'lease_expires_at'),
          integer(row.now, 'now'),
          receivedAt,
        ),
        createdAt,
        generation,
        ...continues,
        runs,
        ...(row.stop_requested === true ? { stopRequested: true } : {}),
        // Where the first stop that named this generation asked the answer to end.
        ...(row.stop_at === null || row.stop_at === undefined ? {} : { stopAt: integer(row.stop_at, 'stop_at') }),
      };
    case 'completed':
      return {
        state: 'completed',
        fingerprint,
        result: textOf(row.outcome, 'outcome'),
        createdAt,
        completedAt: integer(row.settled_at, 'settled_at'),
        generation,
        ...continues,
        runs,
        // Marked for this very generation: a record a later claim replaced starts unmarked.
        ...(row.avoided_generation != null && integer(row.avoided_generation, 'avoided_generation') === generation
          ? { avoided: true }
          : {}),
      };
    case 'failed':
      return {
        state: 'failed',
        fingerprint,
        error: textOf(row.outcome, 'outcome'),
        createdAt,
        failedAt: integer(row.settled_at, 'settled_at'),
        generation,
        ...continues,
        runs,
      };
    default:
      throw new PostgresStoreReplyError(`answer-once/postgres: the record has an unknown state "${String(row.state)}"`);
  }
}

/** The log in a `read-log` row, or null when the row has none. */
export function decodeLog(row: Row): LogSlice | null {
  if (row.log_generation === null || row.log_generation === undefined) return null;
  const data = row.log_data;
  if (!(data instanceof Uint8Array))
    throw new PostgresStoreReplyError('answer-once/postgres: the log’s bytes are not bytea');
  return {
    generation: integer(row.log_generation, 'log_generation'),
    head: textOf(row.log_head, 'log_head'),
    length: integer(row.log_length, 'log_length'),
    offset: integer(row.log_offset, 'log_offset'),
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
  };
}
