/**
 * What `createClient()` refuses, and says so: every bad option is a TypeError in one
 * format — "answer-once: `<option>` must be <expected>; got <value>." — naming the option,
 * what it must be and what came. Every bound is accepted at its edge and refused just past
 * it: timers from their minimum to 2³¹−1 ms, `pollWait` in whole seconds shorter than
 * `timeout`, `minPollInterval` ≥ 1, the retry `limit`, `statusCodes` integers 400–599,
 * `headerName` only the two ID headers in any case, `replayedHeader` an HTTP token.
 */

import { type ClientOptions, createClient, memoryStorageAdapter, storageAdapter } from 'answer-once';
import ky from 'ky';
import { describe, expect, it } from 'vitest';

const BASE = 'http://127.0.0.1:9/';
const MAX_TIMER = 2 ** 31 - 1;
const noop = () => undefined;

function build(options: ClientOptions | undefined) {
  return () => createClient(options);
}

function refused(options: unknown, option: string, expected: string, got: string) {
  const thrown = (() => {
    try {
      createClient(options as ClientOptions);
    } catch (error) {
      return error;
    }
    return undefined;
  })();
  expect(thrown).toBeInstanceOf(TypeError);
  expect((thrown as TypeError).message).toBe(`answer-once: \`${option}\` must be ${expected}; got ${got}.`);
}

const TIMER = 'an integer from 0 to 2147483647';
const TIMER_FROM_1 = 'an integer from 1 to 2147483647';
const ID_HEADERS = "'X-Request-Id' or 'Idempotency-Key'";
const ADAPTER = 'a storage adapter (localStorageAdapter()…), your own IntentStorage as storageAdapter(yours)';

describe('createClient: each bad option named, with what it must be and what came', () => {
  it.each<[string, unknown, string, string, string]>([
    ['options not an object', 5, 'options', 'an options object', '5'],
    ['options null', null, 'options', 'an options object', 'null'],
    ['ky an object', { ky: {} }, 'ky', 'a ky instance', 'an object'],
    ['ky an object with extend', { ky: { extend: noop } }, 'ky', 'a ky instance', 'an object'],
    ['ky a function without extend', { ky: () => 1 }, 'ky', 'a ky instance', 'a function'],
    ['ky null', { ky: null }, 'ky', 'a ky instance', 'null'],
    ['headerName another header', { headerName: 'X-Correlation-Id' }, 'headerName', ID_HEADERS, '"X-Correlation-Id"'],
    ['headerName a near miss', { headerName: 'X-Idempotency-Key' }, 'headerName', ID_HEADERS, '"X-Idempotency-Key"'],
    ['headerName empty', { headerName: '' }, 'headerName', ID_HEADERS, '""'],
    ['headerName a number', { headerName: 5 }, 'headerName', ID_HEADERS, '5'],
    ['replayedHeader empty', { replayedHeader: '' }, 'replayedHeader', 'a header name', '""'],
    ['replayedHeader a number', { replayedHeader: 5 }, 'replayedHeader', 'a header name', '5'],
    ['timeout 0', { timeout: 0 }, 'timeout', TIMER_FROM_1, '0'],
    ['timeout past 2³¹−1', { timeout: MAX_TIMER + 1 }, 'timeout', TIMER_FROM_1, '2147483648'],
    ['timeout a fraction', { timeout: 1.5, pollWait: 0 }, 'timeout', TIMER_FROM_1, '1.5'],
    ['timeout true', { timeout: true }, 'timeout', TIMER_FROM_1, 'true'],
    ['totalTimeout 0', { totalTimeout: 0 }, 'totalTimeout', TIMER_FROM_1, '0'],
    ['totalTimeout past 2³¹−1', { totalTimeout: MAX_TIMER + 1 }, 'totalTimeout', TIMER_FROM_1, '2147483648'],
    ['totalTimeout a string', { totalTimeout: '1000' }, 'totalTimeout', TIMER_FROM_1, '"1000"'],
    ['pollWait negative', { pollWait: -1 }, 'pollWait', 'an integer from 0 to 2147483', '-1'],
    ['pollWait a fraction', { pollWait: 1.5 }, 'pollWait', 'an integer from 0 to 2147483', '1.5'],
    [
      'pollWait past a timer',
      { pollWait: 2_147_484, timeout: false },
      'pollWait',
      'an integer from 0 to 2147483',
      '2147484',
    ],
    ['pollInterval negative', { pollInterval: -1 }, 'pollInterval', TIMER, '-1'],
    ['pollInterval past 2³¹−1', { pollInterval: MAX_TIMER + 1 }, 'pollInterval', TIMER, '2147483648'],
    ['minPollInterval 0', { minPollInterval: 0 }, 'minPollInterval', TIMER_FROM_1, '0'],
    ['minPollInterval past 2³¹−1', { minPollInterval: MAX_TIMER + 1 }, 'minPollInterval', TIMER_FROM_1, '2147483648'],
    ['statusUrl a string', { statusUrl: '/status' }, 'statusUrl', 'a function', '"/status"'],
    ['onEvent a string', { onEvent: 'log' }, 'onEvent', 'a function', '"log"'],
    ['parseJson a string', { parseJson: 'JSON' }, 'parseJson', 'a function', '"JSON"'],
    ['signal an object', { signal: {} }, 'signal', 'an AbortSignal', 'an object'],
    ['signal a string', { signal: 'stop' }, 'signal', 'an AbortSignal', '"stop"'],
    ['parse another mode', { parse: 'xml' }, 'parse', 'one of auto, json, text, none', '"xml"'],
    ['parse in capitals', { parse: 'JSON' }, 'parse', 'one of auto, json, text, none', '"JSON"'],
    ['parse a number', { parse: 5 }, 'parse', 'one of auto, json, text, none', '5'],
    ['storage an object without save', { storage: {} }, 'storage', ADAPTER, 'an object'],
    ['storage whose save is no function', { storage: { save: 1 } }, 'storage', ADAPTER, 'an object'],
    ['storage null', { storage: null }, 'storage', ADAPTER, 'null'],
    ['storage a string', { storage: 'session' }, 'storage', ADAPTER, '"session"'],
    ['storage a function', { storage: Object.assign(noop, { save: noop }) }, 'storage', ADAPTER, 'a function'],
    [
      'storage your own IntentStorage as it is',
      { storage: { save: noop, remove: noop, list: async () => [] } },
      'storage',
      ADAPTER,
      'an object',
    ],
  ])('%s', (_, options, option, expected, got) => {
    refused(options, option, expected, got);
  });

  it('checks pollWait against the timeout only when one is set, and only once pollWait is a whole number', () => {
    refused({ pollWait: 2.5, timeout: 1_000 }, 'pollWait', 'an integer from 0 to 2147483', '2.5');
    expect(build({ timeout: false, pollWait: 2_147_483 })).not.toThrow();
    expect(build({ timeout: false })).not.toThrow();
  });
});

describe('createClient: pollWait (seconds) must be shorter than timeout (ms)', () => {
  it.each<[number, number]>([
    [30, 30_000],
    [10, 10_000],
    [1, 1],
    [31, 30_000],
  ])('refuses pollWait %i with timeout %i', (pollWait, timeout) => {
    refused({ pollWait, timeout }, 'pollWait', `shorter than \`timeout\` (${timeout} ms), in seconds`, String(pollWait));
  });

  it('names the default timeout (30 s) when pollWait reaches it', () => {
    refused({ pollWait: 30 }, 'pollWait', 'shorter than `timeout` (30000 ms), in seconds', '30');
    expect(build({ pollWait: 29 })).not.toThrow();
  });

  it.each<[number, number]>([
    [10, 10_001],
    [0, 1],
    [2_147_483, MAX_TIMER],
  ])('accepts pollWait %i with timeout %i', (pollWait, timeout) => {
    expect(build({ pollWait, timeout })).not.toThrow();
  });
});

describe('createClient: retry', () => {
  it.each<[string, unknown, string, string, string]>([
    ['retry a string', 'often', 'retry', 'a number or a retry policy object', '"often"'],
    ['retry null', null, 'retry', 'a number or a retry policy object', 'null'],
    ['retry true', true, 'retry', 'a number or a retry policy object', 'true'],
    ['a negative limit', -1, 'retry.limit', 'an integer ≥ 0', '-1'],
    ['a fractional limit', 1.5, 'retry.limit', 'an integer ≥ 0', '1.5'],
    ['a limit in a policy, negative', { limit: -1 }, 'retry.limit', 'an integer ≥ 0', '-1'],
    ['a limit as a string', { limit: '2' }, 'retry.limit', 'an integer ≥ 0', '"2"'],
    ['a negative delay', { delay: -1 }, 'retry.delay', TIMER, '-1'],
    ['a delay past 2³¹−1', { delay: MAX_TIMER + 1 }, 'retry.delay', TIMER, '2147483648'],
    ['a NaN delay', { delay: Number.NaN }, 'retry.delay', TIMER, 'NaN'],
    ['a negative backoffLimit', { backoffLimit: -5 }, 'retry.backoffLimit', TIMER, '-5'],
    ['a backoffLimit past 2³¹−1', { backoffLimit: MAX_TIMER + 1 }, 'retry.backoffLimit', TIMER, '2147483648'],
    ['an infinite maxRetryAfter', { maxRetryAfter: Infinity }, 'retry.maxRetryAfter', TIMER, 'Infinity'],
    ['a maxRetryAfter past 2³¹−1', { maxRetryAfter: MAX_TIMER + 1 }, 'retry.maxRetryAfter', TIMER, '2147483648'],
    ['random a number', { random: 0.5 }, 'retry.random', 'a function', '0.5'],
    ['random null', { random: null }, 'retry.random', 'a function', 'null'],
  ])('refuses %s', (_, retry, option, expected, got) => {
    refused({ retry }, option, expected, got);
  });

  it.each<[string, unknown, string]>([
    ['a success status', [200], 'an array'],
    ['a 3xx status', [399], 'an array'],
    ['a status past 599', [600], 'an array'],
    ['one bad status among good ones', [503, 200], 'an array'],
    ['a fractional status', [503.5], 'an array'],
    ['a status as a string', ['503'], 'an array'],
    ['a status alone', 503, '503'],
    ['a string', '503', '"503"'],
  ])('refuses statusCodes with %s', (_, statusCodes, got) => {
    refused({ retry: { statusCodes } }, 'retry.statusCodes', 'an array of 4xx/5xx statuses', got);
  });

  it('accepts every bound at its edge', () => {
    for (const retry of [0, 3, {}, { limit: 0 }, { limit: Number.MAX_SAFE_INTEGER }]) {
      expect(build({ retry: retry as ClientOptions['retry'] })).not.toThrow();
    }
    expect(build({ retry: { delay: 0, backoffLimit: 0, maxRetryAfter: 0 } })).not.toThrow();
    expect(build({ retry: { delay: MAX_TIMER, backoffLimit: MAX_TIMER, maxRetryAfter: MAX_TIMER } })).not.toThrow();
    expect(build({ retry: { statusCodes: [400, 599] } })).not.toThrow();
    expect(build({ retry: { statusCodes: [] } })).not.toThrow();
    expect(build({ retry: { random: () => 0.5 } })).not.toThrow();
  });
});

describe('createClient: what it accepts', () => {
  it('accepts no options, and each timer at its bounds', () => {
    expect(build(undefined)).not.toThrow();
    expect(build({})).not.toThrow();
    expect(build({ timeout: 1, pollWait: 0 })).not.toThrow();
    expect(build({ timeout: MAX_TIMER, totalTimeout: MAX_TIMER, pollInterval: MAX_TIMER })).not.toThrow();
    expect(build({ minPollInterval: MAX_TIMER })).not.toThrow();
    expect(build({ timeout: false, totalTimeout: 1, pollInterval: 0, minPollInterval: 1 })).not.toThrow();
  });

  it('accepts the two ID headers in any case', () => {
    for (const headerName of ['X-Request-Id', 'x-request-id', 'X-REQUEST-ID', 'Idempotency-Key', 'idempotency-key']) {
      expect(build({ headerName: headerName as never })).not.toThrow();
    }
  });

  it('accepts any HTTP token as replayedHeader, one character or all of them', () => {
    const alphabet = "!#$%&'*+.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-";
    for (const replayedHeader of ['X-Cached', 'x', alphabet]) {
      expect(build({ replayedHeader })).not.toThrow();
    }
  });

  it.each(['X Replayed', ' X-Replayed', 'X-Replayed ', 'X-Replayed:', 'X(Replayed)', 'Répété', 'a,b', 'a/b', 'a"b'])(
    'refuses %j as replayedHeader: not a token',
    (replayedHeader) => {
      refused({ replayedHeader }, 'replayedHeader', 'a header name', JSON.stringify(replayedHeader));
    },
  );

  it('accepts each parse mode, a ky instance, an adapter, functions and signals', () => {
    for (const parse of ['auto', 'json', 'text', 'none'] as const) expect(build({ parse })).not.toThrow();
    expect(build({ ky: ky.create({ baseUrl: BASE }) })).not.toThrow();
    expect(build({ storage: memoryStorageAdapter() })).not.toThrow();
    expect(build({ storage: storageAdapter({ save: noop, remove: noop, list: async () => [] }) })).not.toThrow();
    expect(
      build({ statusUrl: (id) => `/status/${id}`, onEvent: noop, parseJson: (text) => JSON.parse(text) }),
    ).not.toThrow();
    expect(build({ signal: new AbortController().signal })).not.toThrow();
    expect(build({ signal: AbortSignal.abort() })).not.toThrow();
    expect(build({ signal: null })).not.toThrow();
  });
});
