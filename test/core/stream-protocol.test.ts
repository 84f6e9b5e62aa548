/**
 * What a streamed answer says about itself (PROTOCOL.md § 14), read by the client's
 * resuming body: the generation header, `Content-Range` (a resumed text body's start, or
 * the unsatisfied form's length), and the event-stream media type.
 */
import { describe, expect, it } from 'vitest';
import { isEventStream, parseContentRange, parseGeneration } from '../../src/core/stream-protocol.js';

describe('parseContentRange', () => {
  it.each([
    ['bytes 5-9/10', { start: 5 }],
    ['bytes 0-0/*', { start: 0 }],
    [' BYTES 12-40/41 ', { start: 12 }],
    ['bytes */10', { length: 10 }],
    ['bytes  */0', { length: 0 }],
  ])('reads %j as %j', (value, expected) => {
    expect(parseContentRange(value)).toEqual(expected);
  });

  it.each([
    null,
    '',
    'bytes */',
    'bytes 5-/10',
    'items 0-1/2',
    'xbytes 5-9/10',
    'bytes 5-9/10x',
    'bytes */10x',
    'bytes */12345678901234567',
    'bytes 12345678901234567-1/2',
  ])('refuses %j', (value) => {
    expect(parseContentRange(value)).toBeUndefined();
  });
});

describe('parseGeneration', () => {
  it.each([
    ['3', 3],
    [' 42 ', 42],
    ['9007199254740991', 9_007_199_254_740_991],
  ])('reads %j as %d', (value, expected) => {
    expect(parseGeneration(value)).toBe(expected);
  });

  it.each([null, '', '0', '-1', '1.5', '2x', 'x2', '12345678901234567', '9007199254740993'])('refuses %j', (value) => {
    expect(parseGeneration(value)).toBeUndefined();
  });
});

describe('isEventStream', () => {
  it.each([
    ['text/event-stream', true],
    ['Text/Event-Stream; charset=utf-8', true],
    [' text/event-stream ;x=1', true],
    ['text/plain', false],
    ['text/event-streams', false],
    [null, false],
  ])('%j → %s', (value, expected) => {
    expect(isEventStream(value)).toBe(expected);
  });
});
