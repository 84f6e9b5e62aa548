import { describe, expect, it } from 'vitest';
import { encodeKey, fingerprintRequest } from 'answer-once/server';

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

  it('changes with any of the three', async () => {
    const base = await fingerprintRequest('POST', '/api/chat', body);
    expect(await fingerprintRequest('PUT', '/api/chat', body)).not.toBe(base);
    expect(await fingerprintRequest('POST', '/api/chat?x=1', body)).not.toBe(base);
    expect(await fingerprintRequest('POST', '/api/chat', new TextEncoder().encode('{"question":"ho"}'))).not.toBe(base);
  });
});
