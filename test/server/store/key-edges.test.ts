import { encodeKey, type IdempotencyEvent, MemoryStore, runOnce } from 'answer-once/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest } from '../../support/server-support.js';

const ID = 'req-0000000001';

/** The encoded user part of a key (PROTOCOL.md § 4.1). */
const userPart = (user: string): string => {
  const key = encodeKey({ user }, ID);
  expect(key.startsWith('answer-once:{') && key.endsWith(`::${ID}}`)).toBe(true);
  return key.slice('answer-once:{'.length, -`::${ID}}`.length);
};

describe('encodeKey: which bytes stay raw', () => {
  it.each([
    ['/', '%2F'],
    ['0', '0'],
    ['9', '9'],
    [':', '%3A'],
    ['@', '%40'],
    ['A', 'A'],
    ['Z', 'Z'],
    ['[', '%5B'],
    ['^', '%5E'],
    ['_', '_'],
    ['`', '%60'],
    ['a', 'a'],
    ['z', 'z'],
    ['{', '%7B'],
    [',', '%2C'],
    ['-', '-'],
    ['.', '%2E'],
  ])('keeps exactly A–Z a–z 0–9 - _ raw: %j is %s', (text, encoded) => {
    expect(userPart(text)).toBe(encoded);
  });
});

describe('encodeKey: UTF-8 at every length boundary', () => {
  it.each([
    ['U+007F, the last one-byte point', '\u007F', '%7F'],
    ['U+0080, the first two-byte point', '\u0080', '%C2%80'],
    ['U+07FF, the last two-byte point', '\u07FF', '%DF%BF'],
    ['U+0800, the first three-byte point', '\u0800', '%E0%A0%80'],
    ['U+FFFF, the last three-byte point', '\uFFFF', '%EF%BF%BF'],
    ['U+10000, the first four-byte point (the lowest surrogate pair)', '\uD800\uDC00', '%F0%90%80%80'],
    ['U+10FFFF, the last point (the highest surrogate pair)', '\uDBFF\uDFFF', '%F4%8F%BF%BF'],
  ])('encodes %s', (_, text, encoded) => {
    expect(userPart(text)).toBe(encoded);
  });

  it('encodes every well-formed string as its standard UTF-8 bytes, as another server would (property)', () => {
    const percent = (bytes: Uint8Array): string =>
      Array.from(bytes, (byte) => {
        const char = String.fromCharCode(byte);
        return /^[A-Za-z0-9_-]$/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
      }).join('');
    const encoder = new TextEncoder();
    fc.assert(
      // 'binary' draws whole code points (U+0000–U+10FFFF, no lone surrogate): well-formed UTF-16.
      fc.property(fc.string({ unit: 'binary', maxLength: 8 }), (text) => {
        expect(userPart(text)).toBe(percent(encoder.encode(text)));
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('encodeKey: only a high surrogate followed by a low one is a pair', () => {
  it.each([
    ['U+D7FF (just below the high surrogates) then a low one', '\uD7FF\uDC00', '%ED%9F%BF%ED%B0%80'],
    ['a letter then a low surrogate', 'a\uDC00', 'a%ED%B0%80'],
    ['two low surrogates', '\uDC00\uDC00', '%ED%B0%80%ED%B0%80'],
    ['a low surrogate then a high one', '\uDFFF\uD800', '%ED%BF%BF%ED%A0%80'],
    ['two high surrogates', '\uD800\uDBFF', '%ED%A0%80%ED%AF%BF'],
    ['a high surrogate then a letter', '\uD800a', '%ED%A0%80a'],
    ['a high surrogate then U+E000 (just past the low ones)', '\uDBFF\uE000', '%ED%AF%BF%EE%80%80'],
    ['a high surrogate at the end', 'a\uDBFF', 'a%ED%AF%BF'],
  ])('encodes %s as lone surrogates, three bytes each', (_, text, encoded) => {
    expect(userPart(text)).toBe(encoded);
  });
});

describe('createIdempotencyHandler: a scope of the wrong shape', () => {
  it.each([
    ['a string', 'alice', /`scope`/],
    ['null', null, /`scope`/],
    ['a function', Object.assign(() => undefined, { user: 'alice' }), /`scope`/],
    ['a number as user', { user: 42 }, /`scope\(\)\.user`/],
    ['an empty user', { user: '' }, /`scope\(\)\.user`/],
    ['no user', { session: 's' }, /`scope\(\)\.user`/],
    ['a number as session', { user: 'alice', session: 7 }, /`scope\(\)\.session`/],
    ['null as session', { user: 'alice', session: null }, /`scope\(\)\.session`/],
  ])('refuses %s: a 500, nothing run or stored, a TypeError naming the field reported', async (_, value, field) => {
    const app = chatApp({ scope: (() => value) as never });
    const response = await app.handle(chatRequest());
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ code: 'internal-error' });
    expect(app.calls).toHaveLength(0);
    expect(app.store.size).toBe(0);
    expect(app.events).toEqual([{ type: 'scope-error', requestId: ID, error: expect.any(TypeError) }]);
    const [event] = app.events as [Extract<IdempotencyEvent, { type: 'scope-error' }>];
    expect((event.error as TypeError).message).toMatch(field);
  });

  it('takes a session left undefined as the empty one', async () => {
    const app = chatApp({ scope: () => ({ user: 'alice', session: undefined }) });
    expect((await app.handle(chatRequest())).status).toBe(200);
    expect(app.calls.map((call) => call.context.key)).toEqual([`answer-once:{alice::${ID}}`]);
  });
});

describe('MemoryStore: a key encodeKey did not build', () => {
  it('names a runOnce business key as its own request ID when evicting it', async () => {
    const events: IdempotencyEvent[] = [];
    const store = new MemoryStore({ maxEntries: 1, onEvent: (event) => events.push(event) });
    await runOnce(store, 'order-42', async () => 'first');
    await runOnce(store, 'order-43', async () => 'second');
    expect(events).toEqual([{ type: 'evicted', key: 'order-42', requestId: 'order-42', state: 'completed' }]);
  });
});
