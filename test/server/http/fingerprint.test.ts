import { createHash } from 'node:crypto';
import { fingerprintRequest } from 'answer-once/server';
import { describe, expect, it } from 'vitest';

const body = new TextEncoder().encode(JSON.stringify({ question: 'où?' }));
const expected = (prefix: string) => createHash('sha256').update(prefix, 'utf8').update(body).digest('hex');

describe('fingerprintRequest', () => {
  it('is the SHA-256 of the uppercase method, the path and query, and the body, each after a newline', async () => {
    expect(await fingerprintRequest('post', '/api/chat?x=%C3%A9', body)).toBe(expected('POST\n/api/chat?x=%C3%A9\n'));
  });

  it('encodes a path beyond ASCII as UTF-8, as a caller of its own would', async () => {
    expect(await fingerprintRequest('POST', '/api/é', body)).toBe(expected('POST\n/api/é\n'));
  });

  it('gives an empty body the prefix alone', async () => {
    expect(await fingerprintRequest('GET', '/a', new Uint8Array(0))).toBe(
      createHash('sha256').update('GET\n/a\n').digest('hex'),
    );
  });
});
