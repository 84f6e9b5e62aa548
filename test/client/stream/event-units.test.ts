import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ResolvedRetryPolicy } from '../../../src/client/options.js';
import { EventUnits } from '../../../src/client/stream/event-units.js';
import { resumableBody } from '../../../src/client/stream/resumable-body.js';
import { chunked } from '../../support/chunked.js';
import { REPLAYED_HEADERS } from '../../support/resumable-rig.js';

const encoder = new TextEncoder();
const GENERATION = 1_764_581_234_567;

/** Line content: any code point but CR and LF, sometimes the markers' prefix (a false alarm to rule out). */
const text = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'binary', maxLength: 10 }).map((s) => s.replace(/[\r\n]/g, '')) },
  { weight: 1, arbitrary: fc.constantFrom('answer-once.', 'answer-once.restart', 'x answer-once.error') },
);
const eol = fc.constantFrom('\n', '\r', '\r\n');
const colon = fc.constantFrom(': ', ':');

type Unit = { readonly lines: readonly string[]; readonly marker?: 'restart' | 'error'; readonly generation?: number };

const unit: fc.Arbitrary<Unit> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        type: fc.option(fc.constantFrom('delta', 'answer-once.stopped', 'answer-once.other'), { nil: undefined }),
        data: fc.array(text, { minLength: 1, maxLength: 3 }),
        id: fc.option(fc.nat(), { nil: undefined }),
        sep: colon,
      })
      .map(({ type, data, id, sep }) => ({
        lines: [
          ...(type === undefined ? [] : [`event${sep}${type}`]),
          ...data.map((line) => `data${sep}${line}`),
          ...(id === undefined ? [] : [`id${sep}${GENERATION}.${id}`]),
        ],
      })),
  },
  { weight: 1, arbitrary: text.map((comment) => ({ lines: [`:${comment}`] })) },
  { weight: 1, arbitrary: fc.nat(10_000).map((ms) => ({ lines: [`retry: ${ms}`] })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: GENERATION + 1, max: GENERATION + 1_000 }).map((generation) => ({
      lines: ['event: answer-once.restart', `data: {"generation":${generation}}`, `id: ${generation}.0`],
      marker: 'restart' as const,
      generation,
    })),
  },
  {
    weight: 1,
    arbitrary: fc.constant({
      lines: ['event: answer-once.error', 'data: {"code":"intent-failed","status":502}'],
      marker: 'error' as const,
    }),
  },
);

/** A unit's bytes: each line and the blank line that ends it with its own line end (a CR then an LF would be one). */
const framed = (value: Unit) =>
  fc.array(eol, { minLength: value.lines.length + 1, maxLength: value.lines.length + 1 }).map((ends) => {
    const last = ends[ends.length - 2]!;
    const blank = last === '\r' && ends.at(-1) === '\n' ? '\r' : ends.at(-1)!;
    return value.lines.map((line, i) => line + ends[i]).join('') + blank;
  });

const stream = fc
  .array(
    unit.chain((value) => framed(value).map((source) => ({ ...value, source }))),
    { maxLength: 12 },
  )
  .chain((units) =>
    fc.record({
      units: fc.constant(units),
      // An unfinished last unit: its lines, no blank line.
      tail: fc.option(fc.array(text, { minLength: 1, maxLength: 2 }), { nil: undefined }),
      cuts: fc.array(fc.nat(), { maxLength: 8 }),
    }),
  );

type Seen = ['units', string] | ['restart', number, string] | ['error', number | undefined];

function read(chunks: readonly Uint8Array[]) {
  const seen: Seen[] = [];
  let handed = 7; // the position it starts from
  const offsets: { offset: number; handed: number }[] = [];
  const units = new EventUnits(7, {
    units(bytes, offset) {
      handed += bytes.byteLength;
      offsets.push({ offset, handed });
      const last = seen.at(-1);
      const decoded = Buffer.from(bytes).toString('latin1');
      if (last?.[0] === 'units') last[1] += decoded;
      else seen.push(['units', decoded]);
    },
    restart(generation, marker) {
      seen.push(['restart', generation, Buffer.from(marker).toString('latin1')]);
      handed = 0;
    },
    error(data) {
      seen.push(['error', data.status]);
    },
  });
  for (const chunk of chunks) units.write(chunk);
  units.end();
  return { seen, offsets };
}

/** What a reader must get: every whole unit but the restart and error markers, each marker reported where it was. */
function expected(units: readonly (Unit & { source: string })[]): Seen[] {
  const seen: Seen[] = [];
  for (const value of units) {
    const bytes = Buffer.from(value.source, 'utf8').toString('latin1');
    if (value.marker === 'restart') seen.push(['restart', value.generation!, bytes]);
    else if (value.marker === 'error') seen.push(['error', 502]);
    else if (seen.at(-1)?.[0] === 'units') (seen.at(-1) as ['units', string])[1] += bytes;
    else seen.push(['units', bytes]);
  }
  return seen;
}

describe('EventUnits (the resumable body finding units in raw bytes)', () => {
  it('hands on every whole unit byte for byte and no marker, however the bytes are framed (LF, CR, CRLF) and chunked', () => {
    fc.assert(
      fc.property(stream, ({ units, tail, cuts }) => {
        const source = units.map((value) => value.source).join('') + (tail?.map((line) => `data: ${line}\n`).join('') ?? '');
        const { seen } = read(chunked(encoder.encode(source), cuts));
        expect(seen).toEqual(expected(units));
      }),
      { numRuns: 1_000 },
    );
  }, 60_000);

  it("counts its position in the answer body's bytes: just after what it handed on, from 0 again after a restart", () => {
    fc.assert(
      fc.property(stream, ({ units, cuts }) => {
        const bytes = encoder.encode(units.map((value) => value.source).join(''));
        const { offsets } = read(chunked(bytes, cuts));
        for (const { offset, handed } of offsets) expect(offset).toBe(handed);
      }),
    );
  });

  it('hands on nothing of a unit until its blank line ended, its CRLF whole even when split across chunks', () => {
    const seen: string[] = [];
    const units = new EventUnits(0, {
      units: (bytes) => seen.push(Buffer.from(bytes).toString()),
      restart() {},
      error() {},
    });
    const after: number[] = [];
    for (const part of ['data: é', '\r', '\n', '\r', '\ndata: b\r\n', '\r', ':x\r', '\r']) {
      units.write(encoder.encode(part));
      after.push(seen.length);
    }
    units.end();
    expect(seen).toEqual(['data: é\r\n\r\n', 'data: b\r\n\r', ':x\r\r']);
    // The unit ended by a CR goes out with the next byte that is not its LF, or at the end.
    expect(after).toEqual([0, 0, 0, 0, 1, 1, 2, 2]);
  });
});

/** An answer-once event stream as § 14.4 frames it: every event's id the offset just after it. */
function answerBody(datas: readonly string[]): Uint8Array {
  let body = '';
  for (const data of datas) {
    const fields = `data: ${data}\n`;
    const fixed = Buffer.byteLength(body) + Buffer.byteLength(fields) + `id: ${GENERATION}.`.length + 2;
    let end = fixed + String(fixed).length;
    while (end - fixed !== String(end).length) end = fixed + String(end).length;
    body += `${fields}id: ${GENERATION}.${end}\n\n`;
  }
  return encoder.encode(body);
}

const RETRY: ResolvedRetryPolicy = {
  limit: 20,
  delay: 0,
  backoffLimit: 0,
  maxRetryAfter: 0,
  statusCodes: [],
  random: () => 0,
};

/** A response with `bytes` in chunks of `sizes`, then a reset connection when `cut`. */
function answer(bytes: Uint8Array, sizes: readonly number[], cut: boolean): Response {
  const chunks = chunked(bytes, sizes);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next) controller.enqueue(next);
      else if (cut) controller.error(new TypeError('terminated'));
      else controller.close();
    },
  });
  return new Response(body, {
    headers: { 'content-type': 'text/event-stream', 'x-idempotent-generation': String(GENERATION) },
  });
}

describe('client.fetch’s resumable event stream', () => {
  it('gives its reader the answer byte for byte across connections cut at any byte (mid-event, mid-character): none twice, none missing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(text, { minLength: 1, maxLength: 15 }),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (datas, lengths, sizes) => {
          const body = answerBody(datas);
          const positions: (string | undefined)[] = [];
          let from = 0;
          /** Each response delivers `lengths[i]` bytes from where it starts, then its connection breaks. */
          const respond = () => {
            const length = lengths[positions.length - 1];
            const end = length === undefined ? body.length : Math.min(body.length, from + (length % 200));
            return answer(body.slice(from, end), sizes, length !== undefined);
          };
          positions.push(undefined);
          const first = respond();
          const stream = resumableBody(first, {
            requestId: 'req_property_1',
            retry: RETRY,
            replayedHeaders: REPLAYED_HEADERS,
            signal: undefined,
            emit: () => undefined,
            settle: () => undefined,
            attempts: () => positions.length,
            async reconnect(headers) {
              const position = new Headers(headers).get('last-event-id') ?? undefined;
              positions.push(position);
              from = Number(position?.split('.')[1] ?? 0);
              return respond();
            },
          });
          const received = new Uint8Array(await new Response(stream).arrayBuffer());
          expect(Buffer.from(received).equals(Buffer.from(body))).toBe(true);
          // Every reconnect named a position at an event's end: an id the server wrote.
          const text = Buffer.from(body).toString();
          for (const position of positions.slice(1)) {
            if (position !== `${GENERATION}.0`) expect(text).toContain(`id: ${position}\n`);
          }
        },
      ),
      { numRuns: 300 },
    );
  }, 60_000);
});
