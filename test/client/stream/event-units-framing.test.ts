/**
 * EventUnits' framing at its edges (PROTOCOL.md § 14.4, the HTML Standard's event stream
 * lines): every unit is handed on as soon as its end is known — at its blank line's LF,
 * or at the byte after a blank line's CR (it may still get its LF) — and not a byte
 * before, however the body is cut into chunks (empty ones included); a blank line is a
 * unit of its own, also first in a body or in a chunk; a chunk of whole units is handed on
 * as it came, not copied.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventUnits } from '../../../src/client/stream/event-units.js';

const encoder = new TextEncoder();
const latin1 = (bytes: Uint8Array) => Buffer.from(bytes).toString('latin1');

/** What the sink got so far: the units' bytes in order, a marker as `<restart G>` or `<error S>`. */
function reader(start = 5) {
  let seen = '';
  let handed = start;
  const offsets: { offset: number; handed: number }[] = [];
  const units = new EventUnits(start, {
    units(bytes, offset) {
      handed += bytes.byteLength;
      offsets.push({ offset, handed });
      seen += latin1(bytes);
    },
    restart(generation) {
      seen += `<restart ${generation}>`;
      handed = 0;
    },
    error(data) {
      seen += `<error ${data.status}>`;
    },
  });
  return { units, offsets, seen: () => seen };
}

/** What was handed on after each chunk, then after the end. */
function handed(chunks: readonly (string | Uint8Array)[]): string[] {
  const { units, seen } = reader();
  const after: string[] = [];
  for (const chunk of chunks) {
    units.write(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
    after.push(seen());
  }
  units.end();
  after.push(seen());
  return after;
}

const ERROR = 'event: answer-once.error\ndata: {"status":503}\n\n';

describe('EventUnits hands on each unit when its end is known', () => {
  it.each([
    ['an LF-ended blank line whose LF comes after an empty chunk', ['data: a\n', '', '\ndata: b'], ['', '', 'data: a\n\n']],
    ['a blank line first in the body (LF)', ['\n', 'data: a'], ['\n', '\n']],
    ['a blank line first in the body (CR, known at the next byte)', ['\r', 'data: a'], ['', '\r']],
    [
      'a CR blank line right after an LF-ended unit, in a chunk after a cut mid-line',
      ['data: a', '\n\n\rdata: b'],
      ['', 'data: a\n\n\r'],
    ],
    ['no unit when a chunk starts with the CR that ends a line', ['data: a', '\rdata: b'], ['', '']],
    ['a blank CR right after a unit its blank CR ended', ['data: a\r\r\rdata: b'], ['data: a\r\r\r']],
  ])('%s', (_, chunks, expected) => {
    // After the end, nothing more: the last unit was unterminated.
    expect(handed(chunks)).toEqual([...expected, expected.at(-1)]);
  });

  it('an unterminated last unit is dropped, also after a CRLF blank line split across chunks and a blank line', () => {
    expect(handed(['data: a\n\r', '\n\n', 'data: cut'])).toEqual([
      '',
      'data: a\n\r\n\n',
      'data: a\n\r\n\n',
      'data: a\n\r\n\n',
    ]);
  });

  it.each([
    ['LF', '\n'],
    ['CR', '\r'],
    ['CRLF', '\r\n'],
  ])(
    'a blank line (%s) at a chunk start, before a marker, is handed on and counted, not taken with the marker',
    (_, blank) => {
      const { units, seen, offsets } = reader(5);
      units.write(encoder.encode('data: a\n\n'));
      units.write(encoder.encode(`${blank}${ERROR}data: b\n\n`));
      expect(seen()).toBe(`data: a\n\n${blank}<error 503>data: b\n\n`);
      expect(offsets.at(-1)?.offset).toBe(5 + 9 + blank.length + 9);
    },
  );

  it('a unit with a w (the marker search starts from it) in its last bytes is handed on', () => {
    expect(handed(['data: wow\n\n', 'data: new\r\r', 'w\n\n'])).toEqual([
      'data: wow\n\n',
      'data: wow\n\n',
      'data: wow\n\ndata: new\r\rw\n\n',
      'data: wow\n\ndata: new\r\rw\n\n',
    ]);
  });
});

describe('EventUnits hands on the bytes as they came', () => {
  it('a chunk that ends on a unit end is handed on as a view of its own bytes, not a copy, chunk after chunk', () => {
    const got: Uint8Array[] = [];
    const units = new EventUnits(0, { units: (bytes) => got.push(bytes), restart() {}, error() {} });
    const chunks = ['data: a\n\n', 'data: b\n\ndata: c\n\n', 'data: d\r\n\r\n'].map((text) => encoder.encode(text));
    for (const chunk of chunks) units.write(chunk);
    expect(got.map(latin1)).toEqual(['data: a\n\n', 'data: b\n\ndata: c\n\n', 'data: d\r\n\r\n']);
    for (const [i, bytes] of got.entries()) expect(bytes.buffer).toBe(chunks[i]!.buffer);
  });

  it('keeps its own copy of an unfinished unit: the reader may take the buffer of the chunk it was handed', () => {
    const got: string[] = [];
    const units = new EventUnits(0, {
      units(bytes) {
        got.push(latin1(bytes));
        // The reader takes the buffer (as a transfer to a worker would): the chunk's bytes are gone.
        structuredClone(bytes.buffer, { transfer: [bytes.buffer as ArrayBuffer] });
      },
      restart() {},
      error() {},
    });
    units.write(encoder.encode('data: a\n\ndata: b'));
    units.write(encoder.encode('\n\n'));
    expect(got).toEqual(['data: a\n\n', 'data: b\n\n']);
  });
});

// The property: any framing, any chunking (empty chunks too) — each unit handed on exactly when its end is known.
const content = fc.constantFrom('data: a', 'data: wow', 'data: é', ': w', 'event: delta', 'id: 3', 'data: answer-once.x');
const eol = fc.constantFrom('\n', '\r', '\r\n');

type Piece = { readonly source: string; readonly shown: string };

const framedLines = (lines: readonly string[]) =>
  fc.array(eol, { minLength: lines.length + 1, maxLength: lines.length + 1 }).map((ends) => {
    // A line's CR and the blank line's LF would be one line end: the blank line is then a CR.
    const blank = ends[lines.length - 1] === '\r' && ends[lines.length] === '\n' ? '\r' : ends[lines.length]!;
    return lines.map((line, i) => line + ends[i]).join('') + blank;
  });

const piece: fc.Arbitrary<Piece> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .array(content, { minLength: 1, maxLength: 3 })
      .chain(framedLines)
      .map((s) => ({ source: s, shown: s })),
  },
  { weight: 3, arbitrary: eol.map((s) => ({ source: s, shown: s })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 99 }).chain((g) =>
      framedLines(['event: answer-once.restart', `data: {"generation":${g}}`]).map((s) => ({
        source: s,
        shown: `<restart ${g}>`,
      })),
    ),
  },
  {
    weight: 1,
    arbitrary: framedLines(['event: answer-once.error', 'data: {"status":502}']).map((s) => ({
      source: s,
      shown: '<error 502>',
    })),
  },
);

const body = fc.record({
  pieces: fc.array(piece, { maxLength: 10 }).map((pieces) =>
    // A blank LF after a unit ended by a CR would be that CR's LF: it is a CRLF blank line then.
    pieces.map((p, i) =>
      p.source === '\n' && pieces[i - 1]?.source.endsWith('\r') ? { source: '\r\n', shown: '\r\n' } : p,
    ),
  ),
  tail: fc.constantFrom('', 'data: t', 'data: t\r', 'data: t\n', 'data: t\r\nid: 1'),
  cuts: fc.array(fc.nat(), { maxLength: 8 }),
});

describe('EventUnits over any framing and chunking', () => {
  it('hands on each unit, marker or not, exactly when its end is known, counting its position as it goes', () => {
    fc.assert(
      fc.property(body, ({ pieces, tail, cuts }) => {
        const bytes = encoder.encode(pieces.map((p) => p.source).join('') + tail);
        // Each piece, the byte count after which it is known to be whole.
        let end = 0;
        const known = pieces.map((p) => {
          end += Buffer.byteLength(p.source);
          return { shown: Buffer.from(p.shown).toString('latin1'), at: p.source.endsWith('\n') ? end : end + 1 };
        });
        const at = cuts.map((cut) => cut % (bytes.length + 1)).sort((a, b) => a - b);
        const { units, seen, offsets } = reader(5);
        let from = 0;
        for (const cut of [...at, bytes.length]) {
          units.write(bytes.slice(from, cut));
          from = cut;
          expect(seen()).toBe(
            known
              .filter((k) => k.at <= cut)
              .map((k) => k.shown)
              .join(''),
          );
        }
        units.end();
        expect(seen()).toBe(known.map((k) => k.shown).join(''));
        for (const { offset, handed: count } of offsets) expect(offset).toBe(count);
      }),
      { numRuns: 300 },
    );
  });
});
