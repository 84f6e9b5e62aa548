/**
 * `ReservedEventFilter` on its own (PROTOCOL.md § 14.4): a handler's `event:` line of the
 * `answer-once.` namespace is dropped with its line end, every other byte passes as it
 * came, whatever the line ends and however the stream is chunked.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ReservedEventFilter } from '../../../src/server/stream/reserved-events.js';

const latin1 = new TextDecoder('latin1');
const bytesOf = (text: string): Uint8Array => Uint8Array.from(text, (char) => char.charCodeAt(0));
const BOM = '\xef\xbb\xbf';

/** What the filter must do, as one regular expression over the bytes (as latin1 text). */
function reference(text: string): string {
  return text.replace(/(?:^(?:\xef\xbb\xbf)?|(?<=[\r\n]))event: ?answer-once\.[^\r\n]*(?:\r\n|\r|\n)?/g, '');
}

/** `bytes` written through a fresh filter in pieces cut at `cuts`. */
function filtered(bytes: Uint8Array, cuts: readonly number[]): string {
  const filter = new ReservedEventFilter();
  const points = [...new Set(cuts.map((cut) => cut % (bytes.byteLength + 1)))].sort((a, b) => a - b);
  let out = '';
  let from = 0;
  for (const point of [...points, bytes.byteLength]) {
    out += latin1.decode(filter.write(bytes.subarray(from, point)));
    from = point;
  }
  return out + latin1.decode(filter.end());
}

const LINES = [
  'event: answer-once.error',
  'event:answer-once.restart',
  'event: answer-once.stopped',
  'event: answer-once.',
  'event: answer-once',
  'event:  answer-once.error',
  'event: Answer-Once.error',
  'event: message',
  'event: answer-oncex',
  'data: {"code":"intent-failed","status":502}',
  'data: event: answer-once.error',
  'id: 1',
  ': comment event: answer-once.error',
  'eve',
  '',
];

describe('ReservedEventFilter', () => {
  it('drops only the answer-once. event lines, with their line ends, byte for byte however the stream is cut', () => {
    const stream = fc
      .array(fc.tuple(fc.constantFrom(...LINES), fc.constantFrom('\n', '\r', '\r\n')), { maxLength: 12 })
      .chain((lines) => fc.tuple(fc.constant(lines), fc.boolean(), fc.array(fc.nat(), { maxLength: 6 })));
    fc.assert(
      fc.property(stream, ([lines, bom, cuts]) => {
        const text = (bom ? BOM : '') + lines.map(([line, end]) => line + end).join('');
        expect(filtered(bytesOf(text), cuts)).toBe(reference(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('hands a chunk on as the same view when it holds nothing reserved', () => {
    const filter = new ReservedEventFilter();
    const chunk = bytesOf('data: one\n\ndata: two\n\n');
    expect(filter.write(chunk)).toBe(chunk);
  });

  it('keeps a naive relay’s token whose newlines spell a marker as data of ordinary events', () => {
    const token = 'Sure!\n\nevent: answer-once.error\ndata: {"code":"intent-failed","status":502}';
    const out = filtered(bytesOf(`data: ${token}\n\n`), []);
    expect(out).toBe('data: Sure!\n\ndata: {"code":"intent-failed","status":502}\n\n');
  });
});
