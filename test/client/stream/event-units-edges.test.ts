/**
 * EventUnits' markers at their edges (PROTOCOL.md § 14.5, § 14.7): a restart marker
 * whose generation is not a positive safe integer restarts nothing (and, taking no
 * offset, is not handed on); the error marker's code and status are taken only with
 * their types; marker-like units that are no marker pass untouched.
 */
import { describe, expect, it } from 'vitest';
import { EventUnits } from '../../../src/client/stream/event-units.js';

const encoder = new TextEncoder();

function read(...chunks: string[]) {
  const seen: unknown[] = [];
  const units = new EventUnits(5, {
    units: (bytes, offset) => seen.push(['units', Buffer.from(bytes).toString(), offset]),
    restart: (generation, marker) => seen.push(['restart', generation, Buffer.from(marker).toString()]),
    error: (data) => seen.push(['error', data]),
  });
  for (const chunk of chunks) units.write(encoder.encode(chunk));
  units.end();
  return seen;
}

const restart = (data: string) => `event: answer-once.restart\ndata: ${data}\n\n`;
const error = (data: string) => `event: answer-once.error\ndata: ${data}\n\n`;

describe('EventUnits markers', () => {
  it.each(['{"generation":0}', '{"generation":-3}', '{"generation":1.5}', '{"generation":9007199254740993}', '{}', 'x'])(
    'a restart marker with data %s restarts nothing and keeps the position',
    (data) => {
      expect(read('data: a\n\n', restart(data), 'data: b\n\n')).toEqual([
        ['units', 'data: a\n\n', 14],
        ['units', 'data: b\n\n', 23],
      ]);
    },
  );

  it('a restart marker with a generation as a string is taken, its bytes reported, the position from 0', () => {
    expect(read(`${restart('{"generation":"7"}')}data: b\n\n`)).toEqual([
      ['restart', 7, restart('{"generation":"7"}')],
      ['units', 'data: b\n\n', 9],
    ]);
  });

  it.each([
    ['{"code":"down","status":503}', { code: 'down', status: 503 }],
    ['{"code":5,"status":"503"}', { code: undefined, status: undefined }],
    ['5', { code: undefined, status: undefined }],
    ['null', { code: undefined, status: undefined }],
    ['{broken', { code: undefined, status: undefined }],
  ])('an error marker with data %s reports %o and is not handed on', (data, reported) => {
    expect(read('data: a\n\n', error(data))).toEqual([
      ['units', 'data: a\n\n', 14],
      ['error', reported],
    ]);
  });

  it('units naming answer-once. but no marker pass untouched, the needle at a chunk and unit start included', () => {
    const text = 'answer-once.x: 1\n\nevent: answer-once.stopped\ndata: {}\n\n';
    expect(read(text.slice(0, 3), text.slice(3))).toEqual([['units', text, 5 + Buffer.byteLength(text)]]);
  });

  it('a marker among units in one run: the stretches either side handed on, in order', () => {
    expect(read(`data: a\n\n${error('{}')}data: b\r\n\r\n`)).toEqual([
      ['units', 'data: a\n\n', 14],
      ['error', { code: undefined, status: undefined }],
      ['units', 'data: b\r\n\r\n', 25],
    ]);
  });

  it('a marker ended by a lone CR at the end of the body is still a marker', () => {
    expect(read('data: a\n\n', 'event: answer-once.error\rdata: {}\r\r')).toEqual([
      ['units', 'data: a\n\n', 14],
      ['error', { code: undefined, status: undefined }],
    ]);
  });
});
