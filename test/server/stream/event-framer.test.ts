import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { frameEvent } from '../../../src/server/format/sse-frame.js';
import { EventFramer } from '../../../src/server/stream/event-framer.js';
import { chunked } from '../../support/chunked.js';

const encoder = new TextEncoder();
const GENERATION = 1_764_581_234_567;

/**
 * § 14.4 by the letter: the whole stream UTF-8 decoded (which drops one leading BOM), parsed
 * by eventsource-parser after a blank line (so no parser major's own BOM check applies) and
 * with an LF after a CR that ends it (the stream is over: that CR ends its line), each unit
 * written anew.
 */
function reference(source: Uint8Array): Uint8Array {
  const units: Uint8Array[] = [];
  let offset = 0;
  const unit = (bytes: Uint8Array) => {
    units.push(bytes);
    offset += bytes.byteLength;
  };
  const parser = createParser({
    onEvent: (message) => unit(frameEvent(message, GENERATION, offset)),
    onComment: (comment) => unit(encoder.encode(`:${comment}\n\n`)),
    onRetry: (retry) => unit(encoder.encode(`retry: ${retry}\n\n`)),
  });
  parser.feed('\n');
  const text = new TextDecoder().decode(source);
  parser.feed(text.endsWith('\r') ? `${text}\n` : text);
  return Buffer.concat(units);
}

/** The framer's pushes as it hands them on (views of its buffers, not copies). */
function views(chunks: readonly Uint8Array[]): Uint8Array[] {
  const pushes: Uint8Array[] = [];
  const framer = new EventFramer(GENERATION, (bytes) => pushes.push(bytes));
  for (const chunk of chunks) framer.write(chunk);
  framer.end();
  return pushes;
}

function framed(chunks: readonly Uint8Array[]): { bytes: Uint8Array; pushes: Uint8Array[] } {
  const pushes: Uint8Array[] = [];
  const framer = new EventFramer(GENERATION, (bytes) => pushes.push(bytes.slice()));
  for (const chunk of chunks) framer.write(chunk);
  framer.end();
  return { bytes: Buffer.concat(pushes), pushes };
}

const text = fc.string({ unit: 'binary', maxLength: 10 }).map((s) => s.replace(/[\r\n]/g, ''));
const line = fc.oneof(
  { weight: 6, arbitrary: text.map((value) => `data: ${value}`) },
  { weight: 1, arbitrary: text.map((value) => `data:${value}`) },
  { weight: 1, arbitrary: fc.constant('data') },
  { weight: 2, arbitrary: text.map((value) => `event: ${value}`) },
  { weight: 1, arbitrary: text.map((value) => `id: ${value}`) },
  { weight: 1, arbitrary: text.map((value) => `:${value}`) },
  { weight: 1, arbitrary: fc.nat(9_999).map((ms) => `retry: ${ms}`) },
  { weight: 1, arbitrary: text.map((value) => `\uFEFFdata: ${value}`) },
  { weight: 1, arbitrary: text },
);
/** Mostly LF (the fast path), sometimes CR or CRLF (the parser from there on). */
const eol = fc.oneof({ weight: 12, arbitrary: fc.constant('\n') }, fc.constant('\r'), fc.constant('\r\n'));
const block = fc
  .tuple(fc.array(line, { minLength: 1, maxLength: 4 }), fc.array(eol, { minLength: 5, maxLength: 5 }))
  .map(([lines, ends]) => {
    let out = '';
    let previous = '';
    lines.forEach((value, i) => {
      out += value + ends[i];
      previous = ends[i]!;
    });
    // A CR then an LF would be one line end, not a blank line.
    return out + (previous === '\r' && ends[4] === '\n' ? '\r' : ends[4]);
  });
const stream = fc.record({
  bom: fc.boolean(),
  blocks: fc.array(block, { maxLength: 10 }),
  tail: fc.option(line, { nil: undefined }),
  cuts: fc.array(fc.nat(), { maxLength: 8 }),
});

describe('EventFramer (§ 14.4 on the server)', () => {
  it("writes the bytes eventsource-parser's framing would, whatever the handler's framing and chunking", () => {
    fc.assert(
      fc.property(stream, ({ bom, blocks, tail, cuts }) => {
        const source = encoder.encode((bom ? '\uFEFF' : '') + blocks.join('') + (tail ?? ''));
        const { bytes, pushes } = framed(chunked(source, cuts));
        expect(Buffer.from(bytes).toString()).toBe(Buffer.from(reference(source)).toString());
        // Every push is whole units: each ends with a blank line.
        for (const push of pushes) expect(Buffer.from(push.subarray(-2)).toString()).toBe('\n\n');
      }),
      { numRuns: 1_000 },
    );
  }, 60_000);

  it('copies an event already framed as § 14.4 writes it, only its id added, multi-byte characters split across chunks', () => {
    const source = encoder.encode('event: delta\ndata: héllo 👋\ndata: second line\n\n');
    const { bytes } = framed(chunked(source, [20, 21, 22, 23]));
    const text = Buffer.from(bytes).toString();
    expect(text).toBe(`event: delta\ndata: héllo 👋\ndata: second line\nid: ${GENERATION}.${bytes.byteLength}\n\n`);
  });

  it('hands on one array per write however many events it holds', () => {
    const pushes: Uint8Array[] = [];
    const framer = new EventFramer(GENERATION, (bytes) => pushes.push(bytes));
    framer.write(encoder.encode('data: a\n\ndata: b\n\n:keep-alive\n\ndata: c\n\ndata: d'));
    expect(pushes).toHaveLength(1);
    framer.write(encoder.encode('\n\n'));
    framer.end();
    expect(pushes).toHaveLength(2);
    expect(Buffer.from(pushes[1]!).toString()).toMatch(/^data: d\nid: \d+\.\d+\n\n$/);
  });
});

/** Events as § 14.4 writes them but for the id: an optional `event: <type>`, `data: ` lines, LF, a blank line; stray blank lines between. */
const plainEvent = fc
  .record({
    blank: fc.boolean(),
    type: fc.option(
      text.filter((value) => value.length > 0),
      { nil: undefined },
    ),
    data: fc.array(text, { minLength: 1, maxLength: 3 }),
  })
  .map(
    ({ blank, type, data }) =>
      (blank ? '\n' : '') +
      (type === undefined ? '' : `event: ${type}\n`) +
      data.map((value) => `data: ${value}\n`).join('') +
      '\n',
  );

/** The text the framer decoded, i.e. what it handed to eventsource-parser. */
function decodedBy(run: () => void): string {
  const decode = vi.spyOn(TextDecoder.prototype, 'decode');
  try {
    run();
    return decode.mock.results.map((result) => String(result.value)).join('');
  } finally {
    decode.mockRestore();
  }
}

describe('EventFramer: the copy path for events already in § 14.4 form', () => {
  it('copies such events without decoding them, whatever the chunking (empty chunks too)', () => {
    fc.assert(
      fc.property(
        fc.array(plainEvent, { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.nat(8), { maxLength: 3 }),
        (events, cuts, empties) => {
          const source = encoder.encode(events.join(''));
          const chunks = chunked(source, cuts);
          for (const at of empties) chunks.splice(at % (chunks.length + 1), 0, new Uint8Array(0));
          let bytes: Uint8Array = new Uint8Array(0);
          expect(decodedBy(() => (bytes = framed(chunks).bytes))).toBe('');
          expect(Buffer.from(bytes).toString()).toBe(Buffer.from(reference(source)).toString());
        },
      ),
      { numRuns: 150 },
    );
  });

  it('decodes only the blocks that are not in that form: comments, retry, ids, an empty event type', () => {
    const blocks = [
      'data: a\n\n',
      ':keep-alive\n\n',
      'event: delta\ndata: b\n\n',
      'id: 7\ndata: c\n\n',
      'retry: 10\n\n',
      'event: \ndata: d\n\n',
      'data: e\n\n',
    ];
    const source = encoder.encode(blocks.join(''));
    let bytes: Uint8Array = new Uint8Array(0);
    expect(decodedBy(() => (bytes = framed([source]).bytes))).toBe(
      ':keep-alive\n\nid: 7\ndata: c\n\nretry: 10\n\nevent: \ndata: d\n\n',
    );
    expect(Buffer.from(bytes).toString()).toBe(Buffer.from(reference(source)).toString());
  });

  it('writes an event whose type is empty without an event line (the type is the default one)', () => {
    const text = Buffer.from(framed([encoder.encode('event: \ndata: x\n\n')]).bytes).toString();
    expect(text).toMatch(/^data: x\nid: \d+\.\d+\n\n$/);
  });
});

describe('EventFramer: when a held event goes out', () => {
  it('hands an event on with the chunk that brings its blank line, also when that is a lone LF after empty chunks', () => {
    const pushes: Uint8Array[] = [];
    const framer = new EventFramer(GENERATION, (bytes) => pushes.push(bytes.slice()));
    framer.write(encoder.encode('data: a\n'));
    framer.write(new Uint8Array(0));
    expect(pushes).toHaveLength(0);
    framer.write(encoder.encode('\n'));
    expect(pushes.map((push) => Buffer.from(push).toString())).toEqual([
      `data: a\nid: ${GENERATION}.${pushes[0]?.byteLength}\n\n`,
    ]);
    framer.write(encoder.encode('data: b\n'));
    framer.write(encoder.encode('\n'));
    expect(pushes).toHaveLength(2);
  });
});

describe('EventFramer: byte-order marks', () => {
  it('keeps a BOM past the stream start as part of its line: that block, parsed, dispatches nothing', () => {
    for (const chunks of [['data: a\n\n', '\uFEFFdata: b\n\n'], ['data: a\n\n\uFEFFdata: b\n\ndata: c\n\n']]) {
      const source = encoder.encode(chunks.join(''));
      const text = Buffer.from(framed(chunks.map((chunk) => encoder.encode(chunk))).bytes).toString();
      expect(text).toBe(Buffer.from(reference(source)).toString());
      expect(text).not.toContain('data: b');
    }
  });

  it('drops a BOM that opens the stream, split or whole, and copies the events after it', () => {
    const source = encoder.encode('\uFEFFdata: a\n\ndata: b\n\n');
    for (const cuts of [[], [1], [2], [3], [1, 2], [0, 1, 1, 2, 3]]) {
      let bytes: Uint8Array = new Uint8Array(0);
      expect(decodedBy(() => (bytes = framed(chunked(source, cuts)).bytes))).toBe('');
      const text = Buffer.from(bytes).toString();
      expect(text).toBe(Buffer.from(reference(source)).toString());
      expect(text).toMatch(/^data: a\n/);
    }
  });

  it('drops one BOM only: bytes that begin one but do not finish it, or a second, are input and that line dispatches nothing', () => {
    const event = encoder.encode('data: a\n\ndata: b\r\r');
    for (const opening of [[0xef], [0xef, 0xbb], [0xef, 0xbb, 0xef, 0xbb, 0xbf], [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf]]) {
      const source = Uint8Array.of(...opening, ...event);
      for (let cut = 0; cut <= opening.length + 1; cut += 1) {
        // Split anywhere in the opening, an empty chunk between the halves.
        const text = Buffer.from(
          framed([source.subarray(0, cut), new Uint8Array(0), source.subarray(cut)]).bytes,
        ).toString();
        expect(text).toBe(Buffer.from(reference(source)).toString());
        expect(text).toMatch(/^data: b\nid: \d+\.\d+\n\n$/);
      }
    }
  });
});

describe('EventFramer: CR line ends', () => {
  it("frames an event a CR ends when that CR comes, not with the handler's next bytes, and the one the body ends with", () => {
    const chunks = ['data: a\r\r', '\ndata: b\r\n', '\r', '\ndata: c\r\r'];
    const pushes: string[] = [];
    const framer = new EventFramer(GENERATION, (bytes) => pushes.push(Buffer.from(bytes).toString()));
    const seen = chunks.map((chunk) => {
      framer.write(encoder.encode(chunk));
      return pushes.map((push) => push.split('\n')[0]);
    });
    framer.end();
    expect(seen).toEqual([['data: a'], ['data: a'], ['data: a', 'data: b'], ['data: a', 'data: b', 'data: c']]);
    expect(pushes.join('')).toBe(Buffer.from(reference(encoder.encode(chunks.join('')))).toString());
  });

  it('ends an event at the blank line after a CR LF whose CR, LF and blank line come one chunk each', () => {
    const chunks = ['data: a\r', '\n', '\ndata: b\n\n'];
    const pushes: string[] = [];
    const framer = new EventFramer(GENERATION, (bytes) => pushes.push(Buffer.from(bytes).toString()));
    for (const chunk of chunks) framer.write(encoder.encode(chunk));
    framer.end();
    const written = pushes.join('');
    expect(
      written
        .split('\n\n')
        .filter(Boolean)
        .map((event) => event.split('\n')[0]),
    ).toEqual(['data: a', 'data: b']);
    expect(written).toBe(Buffer.from(reference(encoder.encode(chunks.join('')))).toString());
  });
});

describe('EventFramer: its buffers', () => {
  const event = (n: number) => encoder.encode(`data: event ${n}\n\n`);

  it('keeps a short answer small: buffers begin at 256 B and double', () => {
    const pushes = views(Array.from({ length: 20 }, (_, n) => event(n)));
    const total = pushes.reduce((sum, push) => sum + push.byteLength, 0);
    expect(Math.max(...pushes.map((push) => push.buffer.byteLength))).toBeLessThanOrEqual(2 * total);
    expect(pushes[0]?.buffer.byteLength).toBe(256);
  });

  it('writes a long answer of small events into a few buffers of at most 64 KiB', () => {
    const pushes = views(Array.from({ length: 3_000 }, (_, n) => event(n)));
    const buffers = new Set(pushes.map((push) => push.buffer));
    expect(Math.max(...[...buffers].map((buffer) => buffer.byteLength))).toBe(65_536);
    expect(buffers.size).toBeLessThanOrEqual(12);
  });

  it('hands on one array for a write whose units fill its buffer exactly', () => {
    const comment = `:${'x'.repeat(125)}\n\n`; // 128 B, as written
    const pushes = views([encoder.encode(comment + comment)]);
    expect(pushes.map((push) => push.byteLength)).toEqual([256]);
  });
});
