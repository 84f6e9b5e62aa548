import { createParser } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventFramer } from '../../src/server/event-framer.js';
import { frameEvent } from '../../src/server/sse-frame.js';

const encoder = new TextEncoder();
const GENERATION = 1_764_581_234_567;

/** § 14.4 by the letter: the whole stream parsed by eventsource-parser (one leading BOM dropped, by the parser), each unit written anew. */
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
  parser.feed(new TextDecoder('utf-8', { ignoreBOM: true }).decode(source));
  return Buffer.concat(units);
}

function framed(chunks: readonly Uint8Array[]): { bytes: Uint8Array; pushes: Uint8Array[] } {
  const pushes: Uint8Array[] = [];
  const framer = new EventFramer(GENERATION, (bytes) => pushes.push(bytes.slice()));
  for (const chunk of chunks) framer.write(chunk);
  framer.end();
  return { bytes: Buffer.concat(pushes), pushes };
}

function chunked(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((cut) => (bytes.length === 0 ? 0 : cut % bytes.length)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const cut of [...at, bytes.length]) {
    if (cut > from) chunks.push(bytes.slice(from, cut));
    from = Math.max(from, cut);
  }
  return chunks;
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
