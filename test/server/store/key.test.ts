import { encodeKey, fingerprintRequest } from 'answer-once/server';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';

describe('encodeKey', () => {
  it('maps different (user, session, id) triples to different keys, whatever the separators', () => {
    const triples: [string, string, string][] = [
      ['a:b', 'c', 'id-00000001'],
      ['a', 'b:c', 'id-00000001'],
      ['a', 'b', 'c:id-00000001'],
      ['a%3Ab', 'c', 'id-00000001'],
      ['a}', '{b', 'id-00000001'],
      ['', 'a:b:c', 'id-00000001'],
    ];
    const keys = triples.map(([user, session, id]) => encodeKey({ user, session }, id));
    expect(new Set(keys).size).toBe(triples.length);
  });

  it('puts the whole intent inside one Redis Cluster hash tag', () => {
    const key = encodeKey({ user: 'ü{x}', session: 's' }, 'req-0000000001');
    expect(key).toBe('answer-once:{%C3%BC%7Bx%7D:s:req-0000000001}');
    expect(key.match(/[{}]/g)).toEqual(['{', '}']);
  });

  it('matches the protocol’s example keys', () => {
    const id = '01JD6X0Y4Z5KQ8R2M3N7P9S1T0';
    expect(encodeKey({ user: 'a:b', session: 'c' }, id)).toBe(`answer-once:{a%3Ab:c:${id}}`);
    expect(encodeKey({ user: 'a', session: 'b:c' }, id)).toBe(`answer-once:{a:b%3Ac:${id}}`);
    expect(encodeKey({ user: 'zoë@example.com' }, id)).toBe(`answer-once:{zo%C3%AB%40example%2Ecom::${id}}`);
    expect(encodeKey({ user: '\uD800' }, id)).toBe(`answer-once:{%ED%A0%80::${id}}`); // a lone surrogate, WTF-8
    expect(encodeKey({ user: '\uFFFD' }, id)).toBe(`answer-once:{%EF%BF%BD::${id}}`);
    expect(encodeKey({ user: '\u{1F600}' }, id)).toBe(`answer-once:{%F0%9F%98%80::${id}}`); // a pair is one code point
  });

  it('never lets a user whose name holds a lone surrogate read the answers of the user with U+FFFD in its place', () => {
    const id = 'req-0000000001';
    expect(encodeKey({ user: 'x\uD800' }, id)).not.toBe(encodeKey({ user: 'x\uFFFD' }, id));
    expect(encodeKey({ user: 'x\uDC00' }, id)).not.toBe(encodeKey({ user: 'x\uD800' }, id));
    expect(encodeKey({ user: '\uD83D\uDE00' }, id)).not.toBe(encodeKey({ user: '\uDE00\uD83D' }, id));
  });

  it('gives every two different scopes two different keys, for any UTF-16 strings (property)', () => {
    // Every code unit, lone surrogates included, weighted toward the separators and the escape.
    const unit = fc.oneof(
      fc.constantFrom(':', '%', '{', '}', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uFFFD', 'a', '3A'),
      fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
    );
    const part = fc.string({ unit, maxLength: 8 });
    const scope = fc.record({ user: part, session: part });
    fc.assert(
      fc.property(scope, scope, (a, b) => {
        const same = a.user === b.user && a.session === b.session;
        return (encodeKey(a, 'req-0000000001') === encodeKey(b, 'req-0000000001')) === same;
      }),
      { numRuns: 5_000 },
    );
  });

  it('treats a missing session as the empty one and honours a prefix', () => {
    expect(encodeKey({ user: 'u' }, 'req-0000000001', 'chat:')).toBe('chat:{u::req-0000000001}');
    expect(() => encodeKey({ user: 'u' }, 'req-0000000001', 'a{')).toThrow(/`keyPrefix`/);
  });
});

describe('fingerprintRequest', () => {
  const body = new TextEncoder().encode('{"question":"hi"}');

  it('is the SHA-256 hex of method, path and body', async () => {
    const fingerprint = await fingerprintRequest('post', '/api/chat', body);
    const expected = new Uint8Array(
      await crypto.subtle.digest('SHA-256', new TextEncoder().encode('POST\n/api/chat\n{"question":"hi"}')),
    );
    expect(fingerprint).toBe(Buffer.from(expected).toString('hex'));
  });

  // PROTOCOL.md § 5.2's test vectors, fixed strings: what another language's server must match.
  const vectors = [
    ['POST', '/api/chat', '{"question":"hi"}', 'e1d01a0844975df4aae3c234f290c5615fd47a2ec20ea84b017511d01ce1a4f3'],
    ['GET', '/api/chat?x=1', '', '3f3a0bac4e96e08d9dea7cc861cc1d2e9904e02b645bc3df9caa6d0f6cad7688'],
  ] as const;

  it('matches the protocol’s test vectors', async () => {
    for (const [method, path, text, expected] of vectors) {
      expect(await fingerprintRequest(method, path, new TextEncoder().encode(text))).toBe(expected);
    }
  });

  it('matches them with WebCrypto too, where node:crypto is not at hand (workers, browsers)', async () => {
    const host = process as { getBuiltinModule?: unknown };
    const getBuiltinModule = host.getBuiltinModule;
    host.getBuiltinModule = undefined;
    vi.resetModules();
    try {
      const webOnly = await import('../../../src/server/http/fingerprint.js');
      for (const [method, path, text, expected] of vectors) {
        expect(await webOnly.fingerprintRequest(method, path, new TextEncoder().encode(text))).toBe(expected);
      }
    } finally {
      host.getBuiltinModule = getBuiltinModule;
      vi.resetModules();
    }
  });

  it('changes with any of the three', async () => {
    const base = await fingerprintRequest('POST', '/api/chat', body);
    expect(await fingerprintRequest('PUT', '/api/chat', body)).not.toBe(base);
    expect(await fingerprintRequest('POST', '/api/chat?x=1', body)).not.toBe(base);
    expect(await fingerprintRequest('POST', '/api/chat', new TextEncoder().encode('{"question":"ho"}'))).not.toBe(base);
  });
});
