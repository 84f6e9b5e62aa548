/**
 * What RedisStore makes of a script's reply that no store script returns — a corrupt
 * record, a foreign key, a client with another type mapping (src/redis/reply.ts,
 * src/redis/log-reply.ts): a `RedisStoreReplyError` naming what was wrong, never a record
 * with a field missing or a log whose bytes do not add up. The Redis suites check the
 * replies the scripts do return; these are the ones they cannot.
 */

import { RedisStoreReplyError } from 'answer-once/redis';
import { describe, expect, it } from 'vitest';
import { decodeAppend, decodeSnapshot } from '../../src/redis/log-reply.js';
import { array, decodeRecord, integer, text } from '../../src/redis/reply.js';

const encode = (value: string): Uint8Array => new TextEncoder().encode(value);
/** `{_, now, s, f, t, l, c, r, e, d, g, x, n, p}` as the read script returns it. */
const processing = ['record', '1000', 'processing', 'fp', 'token-1', '1500', '900', null, null, null, '7', null, '2'];
const completed = ['record', '1000', 'completed', 'fp', null, null, '900', 'answer', null, '950', '7', null, '1'];

const refused = (call: () => unknown, message: string) => {
  expect(call).toThrow(RedisStoreReplyError);
  expect(call).toThrow(message);
};

describe('script replies', () => {
  it('text: strings as they are, bytes decoded, nil as null; anything else refused by type', () => {
    expect(text('a')).toBe('a');
    expect(text(encode('é'))).toBe('é');
    expect(text(null)).toBeNull();
    expect(text(undefined)).toBeNull();
    refused(() => text(5), 'expected a string reply, got number');
  });

  it('integer: numbers, bigints and integers as text; anything else refused with the value', () => {
    expect(integer(5)).toBe(5);
    expect(integer(5n)).toBe(5);
    expect(integer('12')).toBe(12);
    expect(integer(encode('12'))).toBe(12);
    refused(() => integer('1.5'), 'expected an integer reply, got 1.5');
    refused(() => integer(2n ** 60n), `expected an integer reply, got ${2n ** 60n}`);
    // A nil or empty field is no integer (Number() would make it 0: a record created at 0).
    refused(() => integer(null), 'expected an integer reply, got null');
    refused(() => integer(''), 'expected an integer reply, got ');
  });

  it('array: at least its length, else refused', () => {
    expect(array([1, 2], 2)).toEqual([1, 2]);
    refused(() => array([1], 2), 'unexpected script reply shape');
    refused(() => array('12', 1), 'unexpected script reply shape');
  });

  it('decodeRecord: each state with its fields, the lease in this process’s clock; a missing field named', () => {
    expect(decodeRecord(processing, 10_000)).toEqual({
      state: 'processing',
      fingerprint: 'fp',
      token: 'token-1',
      leaseExpiresAt: 10_500,
      createdAt: 900,
      runs: 2,
      generation: 7,
    });
    expect(decodeRecord(completed, 0)).toEqual({
      state: 'completed',
      fingerprint: 'fp',
      result: 'answer',
      createdAt: 900,
      completedAt: 950,
      runs: 1,
      generation: 7,
    });
    const stopped = [...processing.slice(0, 11), '1', null, '42'];
    expect(decodeRecord(stopped, 0)).toMatchObject({ stopRequested: true, stopAt: 42, runs: 1 });
    expect(decodeRecord(['record', '1000', null], 0)).toBeNull();
    refused(() => decodeRecord(['record', '1000', 'processing', null], 0), 'record has no fingerprint');
    refused(
      () =>
        decodeRecord(
          processing.map((v, i) => (i === 4 ? null : v)),
          0,
        ),
      'record has no token',
    );
    refused(
      () =>
        decodeRecord(
          completed.map((v, i) => (i === 7 ? null : v)),
          0,
        ),
      'record has no result',
    );
    refused(
      () => decodeRecord(['record', '1000', 'failed', 'fp', null, null, '900', null, null, '950'], 0),
      'record has no error',
    );
    refused(() => decodeRecord(['record', '1000', 'lost', 'fp', null, null, '900'], 0), 'unknown state "lost"');
  });

  it('decodeAppend: written or refused with its reason; a missing head is the caller’s bug; any other reply refused', () => {
    expect(decodeAppend([1, 30, 0])).toEqual({ ok: true, length: 30, stopRequested: false });
    expect(decodeAppend([1, 30, 1])).toEqual({ ok: true, length: 30, stopRequested: true });
    for (const reason of ['fenced', 'gone', 'offset'] as const)
      expect(decodeAppend([0, reason])).toEqual({ ok: false, reason });
    expect(() => decodeAppend([0, 'head'])).toThrow(TypeError);
    expect(() => decodeAppend([0, 'head'])).toThrow('the first append of a generation needs its `head`');
    refused(() => decodeAppend([0, 'elsewhere']), 'append answered an unknown reason "elsewhere"');
    refused(() => decodeAppend([1]), 'unexpected script reply shape');
  });

  it('decodeSnapshot: the log’s bytes joined from one or many blobs; a log without its head, or whose bytes do not add up, refused', () => {
    const log = (...chunks: unknown[]) => [completed, '7', 'HEAD', '6', '0', ...chunks];
    const snapshot = (reply: unknown[]) => decodeSnapshot(reply, 0);
    expect(snapshot([completed])).toMatchObject({ record: { state: 'completed' }, log: null });
    expect(snapshot([['record', '1000', null], '7', 'HEAD', '6', '0'])).toEqual({ record: null, log: null });
    const one = snapshot(log(encode('abcdef'))).log;
    expect(one).toMatchObject({ generation: 7, head: 'HEAD', length: 6, offset: 0 });
    expect(new TextDecoder().decode(one?.data)).toBe('abcdef');
    expect(new TextDecoder().decode(snapshot(log(encode('abc'), encode('de'), 'f')).log?.data)).toBe('abcdef');
    expect(snapshot([completed, '7', 'HEAD', '0', '0']).log?.data.byteLength).toBe(0);
    expect(snapshot([completed, '7', 'HEAD', '9', '3', encode('abcdef')]).log).toMatchObject({ length: 9, offset: 3 });
    refused(() => snapshot([completed, '7', null, '6', '0', encode('abcdef')]), 'log without a head');
    refused(() => snapshot(log(encode('abc'))), 'the log’s bytes do not add up to its length');
    refused(() => snapshot(log(6)), 'expected the log’s bytes as a blob string');
    refused(() => snapshot([]), 'unexpected script reply shape');
  });
});
