/**
 * Each store script's arguments and reply, whatever carries them: `RedisStore` over TCP
 * and `UpstashStore` over REST run the same scripts (`scripts/`), so they build the same
 * arguments and read the same replies here. A bad value is a `TypeError` naming it
 * (`arguments.ts`) before anything is sent.
 */

import { toLocalDeadline } from '../server/store/deadline.js';
import type { StepStart, StepStartOptions } from '../server/store/step-store.js';
import type { AcquireResult, WriteResult } from '../server/store/store.js';
import {
  LOG_LINGER_MS,
  type LogAppend,
  type LogPosition,
  type StopOutcome,
  stopOffset,
} from '../server/store/stream-store.js';
import { checkBatch, checkMs, checkText } from './arguments.js';
import { RedisStoreReplyError } from './errors.js';
import { array, decodeRecord, integer, text } from './reply.js';
import { stopChannelOf } from './scripts/stop.js';

/** A fenced script's reply: 1 written, 0 fenced, -1 no record. */
export function writeResult(reply: unknown): WriteResult {
  const code = integer(reply);
  return code === 1 ? 'written' : code === -1 ? 'gone' : 'fenced';
}

/** `scripts/acquire.ts`'s arguments; `token` is the new one, random per claim. */
export const acquireArguments = (fingerprint: string, leaseMs: number, graceMs: number, token: string): string[] => [
  checkText('fingerprint', fingerprint),
  checkMs('leaseMs', leaseMs, 1),
  String(graceMs),
  token,
];

/** `scripts/acquire.ts`'s reply: the claim (leaseExpiresAt in this process's clock), or the record as it is. */
export function decodeAcquire(reply: unknown, token: string, receivedAt: number): AcquireResult {
  const [acquired, now, , lease, takeover, retry, generation, runs] = array(reply, 8);
  if (integer(acquired) !== 1) {
    const record = decodeRecord(reply, receivedAt);
    if (!record) throw new RedisStoreReplyError('answer-once/redis: acquire refused without a record');
    return { acquired: false, record };
  }
  return {
    acquired: true,
    token,
    leaseExpiresAt: toLocalDeadline(integer(lease), integer(now), receivedAt),
    takeover: integer(takeover) === 1,
    retry: integer(retry) === 1,
    runs: integer(runs),
    generation: integer(generation),
  };
}

export const renewArguments = (token: string, leaseMs: number, graceMs: number): string[] => [
  checkText('token', token),
  checkMs('leaseMs', leaseMs, 1),
  String(graceMs),
];

/** A fenced script's reply: 1 written, 0 fenced, -1 no record, -2 the staged parts (`scripts/stage.ts`) went astray. */
export function stagedWriteResult(reply: unknown): WriteResult {
  if (integer(reply) === -2) throw new RedisStoreReplyError('answer-once/redis: the staged parts of a settle do not add up');
  return writeResult(reply);
}

/** A settle's `result` or `error`, checked to be a string. */
export function checkPayload(state: 'completed' | 'failed', payload: string): string {
  if (typeof payload !== 'string') {
    throw new TypeError(`answer-once/redis: expected \`${state === 'completed' ? 'result' : 'error'}\` to be a string`);
  }
  return payload;
}

/**
 * `scripts/settle.ts`'s arguments: complete's `result` or fail's `error` (its last part,
 * after `staged` bytes staged by `scripts/stage.ts`, when given).
 */
export function settleArguments<Payload extends string | Uint8Array>(
  token: string,
  state: 'completed' | 'failed',
  payload: Payload,
  ttlMs: number,
  staged?: number,
): (string | Payload)[] {
  const last = payload instanceof Uint8Array ? payload : checkPayload(state, payload as string);
  const ttl = checkMs('ttlMs', ttlMs, 1);
  return [checkText('token', token), state, last, ttl, String(LOG_LINGER_MS), staged === undefined ? '' : String(staged)];
}

/** `scripts/append.ts`'s arguments, the bytes as given (each transport sends them its way). */
export function appendArguments(token: string, batch: LogAppend, graceMs: number): (string | Uint8Array)[] {
  const { offset, data, head, retainBytes, leaseMs, continues } = checkBatch(batch);
  return [
    checkText('token', token),
    String(offset),
    data,
    head === undefined ? '0' : '1',
    head ?? '',
    retainBytes === undefined ? '' : String(retainBytes),
    leaseMs === undefined ? '' : checkMs('leaseMs', leaseMs, 1),
    String(graceMs),
    continues === undefined ? '' : String(continues),
  ];
}

/** `scripts/read-log.ts`'s arguments, with a page's `cap` if any; a `from` that is not a position is a `TypeError`. */
export function readLogArguments(from: LogPosition | null, cap?: number): string[] {
  const page = cap === undefined ? '' : String(cap);
  if (from === null) return ['', '0', page];
  if (!Number.isSafeInteger(from.generation) || !Number.isSafeInteger(from.offset) || from.offset < 0) {
    throw new TypeError('answer-once/redis: expected `from` to be null or { generation, offset } of integers');
  }
  return [String(from.generation), String(from.offset), page];
}

/** `scripts/stop.ts`'s arguments: the position where the answer ends, if any, and the stores' stop channel. */
export function stopArguments(at: LogPosition | undefined, prefix: string): string[] {
  const offset = stopOffset(at);
  const position = offset === undefined || !at ? ['', ''] : [String(at.generation), String(offset)];
  return [...position, stopChannelOf(prefix)];
}

export function decodeStop(reply: unknown): StopOutcome {
  const answer = text(reply);
  if (answer === 'stopping' || answer === 'settled' || answer === 'unknown') return answer;
  throw new RedisStoreReplyError(`answer-once/redis: stop answered "${String(answer)}"`);
}

export const startStepArguments = (token: string, step: string, options: StepStartOptions): string[] => [
  checkText('token', token),
  checkText('step', step, true),
  options.restart === true ? '1' : '0',
];

export function decodeStepStart(reply: unknown): StepStart {
  const [code, outcome] = array(reply, 1);
  switch (integer(code)) {
    case 1:
      return { state: 'started' };
    case 2:
      return { state: 'finished', outcome: text(outcome) ?? '' };
    case 3:
      return { state: 'unfinished' };
    case 0:
      return { state: 'fenced' };
    default:
      return { state: 'gone' };
  }
}

export const finishStepArguments = (token: string, step: string, outcome: string): string[] => [
  checkText('token', token),
  checkText('step', step, true),
  checkText('outcome', outcome),
];
