import { createIdempotencyHandler, withCors } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, statusRequest } from '../../support/server-support.js';

const base = { scope: () => ({ user: 'alice' }), handler: () => Response.json({ ok: true }) };

describe('createIdempotencyHandler: CORS', () => {
  it('answers a preflight allowing the protocol’s request headers', async () => {
    const app = chatApp({ cors: { origin: ['https://chat.example'] } });
    const preflight = await app.handle(
      new Request('http://app.test/api/chat', {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://chat.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'x-request-id, prefer, content-type',
        },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('Access-Control-Allow-Origin')).toBe('https://chat.example');
    const allowed = preflight.headers.get('Access-Control-Allow-Headers')?.toLowerCase() ?? '';
    for (const header of ['x-request-id', 'idempotency-key', 'prefer', 'content-type']) expect(allowed).toContain(header);
    expect(app.calls).toHaveLength(0);
  });

  it('echoes the origin, never *, when credentials are allowed (withCors over any handler)', async () => {
    const handle = withCors(async () => new Response('ok'), { origin: ['https://a.example'], credentials: true });
    const response = await handle(new Request('http://app.test/x', { headers: { Origin: 'https://a.example' } }));
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('https://a.example');
    expect(response.headers.get('Access-Control-Allow-Credentials')).toBe('true');
    expect(response.headers.get('Vary')).toContain('Origin');
    expect(await response.text()).toBe('ok');
  });

  it('exposes the headers the client reads, and nothing to a foreign origin', async () => {
    const app = chatApp({ cors: { origin: ['https://chat.example'] } });
    const response = await app.handle(chatRequest({ headers: { Origin: 'https://chat.example' } }));
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('https://chat.example');
    const exposed = response.headers.get('Access-Control-Expose-Headers')?.toLowerCase() ?? '';
    for (const header of ['x-idempotent-replayed', 'location', 'retry-after', 'x-request-id', 'preference-applied']) {
      expect(exposed).toContain(header);
    }
    const foreign = await app.handle(chatRequest({ id: 'req-0000000002', headers: { Origin: 'https://evil.example' } }));
    expect(foreign.headers.get('Access-Control-Allow-Origin')).toBeNull();
    // The answer depends on Origin even when it carries no CORS headers: caches must know.
    expect(foreign.headers.get('Vary')).toContain('Origin');
    const sameOrigin = await app.handle(chatRequest({ id: 'req-0000000003' }));
    expect(sameOrigin.headers.get('Vary')).toContain('Origin');
  });
});

describe('createIdempotencyHandler: CORS with credentials', () => {
  it('refuses credentials with the default origin * at creation, naming the option', () => {
    expect(() => createIdempotencyHandler({ ...base, cors: { credentials: true } })).toThrow(TypeError);
    expect(() => createIdempotencyHandler({ ...base, cors: { credentials: true } })).toThrow(/`cors.origin`/);
    expect(() => withCors(async () => new Response('ok'), { credentials: true })).toThrow(/`cors.origin`/);
  });

  it('refuses credentials with an explicit origin *, alone or in a list', () => {
    expect(() => createIdempotencyHandler({ ...base, cors: { origin: '*', credentials: true } })).toThrow(/`cors.origin`/);
    expect(() => createIdempotencyHandler({ ...base, cors: { origin: ['*'], credentials: true } })).toThrow(/`cors.origin`/);
  });

  it('never lets an origin it was not given make credentialed requests', async () => {
    const app = chatApp({ cors: { origin: ['https://chat.example'], credentials: true } });
    for (const origin of ['https://evil.example', 'null']) {
      const preflight = await app.handle(
        new Request('http://app.test/api/chat', {
          method: 'OPTIONS',
          headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
        }),
      );
      expect(preflight.headers.get('Access-Control-Allow-Origin')).toBeNull();
      expect(preflight.headers.get('Access-Control-Allow-Credentials')).toBeNull();
      const answer = await app.handle(statusRequest('req-0000000001', { headers: { Origin: origin } }));
      expect(answer.headers.get('Access-Control-Allow-Origin')).toBeNull();
      expect(answer.headers.get('Access-Control-Allow-Credentials')).toBeNull();
    }
  });

  it('never echoes the origin null, even to a predicate that would allow it', async () => {
    const app = chatApp({ cors: { origin: () => true, credentials: true } });
    const answer = await app.handle(chatRequest({ headers: { Origin: 'null' } }));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('Access-Control-Allow-Origin')).toBeNull();
    const allowed = await app.handle(chatRequest({ id: 'req-0000000002', headers: { Origin: 'https://chat.example' } }));
    expect(allowed.headers.get('Access-Control-Allow-Origin')).toBe('https://chat.example');
    expect(allowed.headers.get('Access-Control-Allow-Credentials')).toBe('true');
  });
});
