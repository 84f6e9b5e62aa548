import { withCors } from 'answer-once/server';
import { describe, expect, it } from 'vitest';

const ok = async () => new Response('ok');
const get = (origin?: string) => new Request('http://app.test/x', { headers: origin ? { Origin: origin } : {} });
const preflight = (origin: string) =>
  new Request('http://app.test/x', {
    method: 'OPTIONS',
    headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
  });

describe('withCors: what each option lets a browser do', () => {
  it('answers every origin * by default: no Vary, no credentials, the default methods and max age', async () => {
    const handle = withCors(ok);
    const response = await handle(get('https://any.example'));
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(response.headers.get('Access-Control-Allow-Credentials')).toBeNull();
    expect(response.headers.get('Vary')).toBeNull();
    // Without an Origin (same-origin or a server), the answer is passed on as it is.
    expect((await handle(get())).headers.get('Access-Control-Allow-Origin')).toBeNull();
    const pre = await handle(preflight('https://any.example'));
    expect(pre.status).toBe(204);
    expect(pre.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(pre.headers.get('Access-Control-Allow-Methods')).toBe('GET, POST, PUT, PATCH, DELETE');
    expect(pre.headers.get('Access-Control-Max-Age')).toBe('600');
    expect(pre.headers.get('Access-Control-Allow-Credentials')).toBeNull();
  });

  it('allows exactly the one origin given as a string', async () => {
    const handle = withCors(ok, { origin: 'https://chat.example' });
    expect((await handle(get('https://chat.example'))).headers.get('Access-Control-Allow-Origin')).toBe(
      'https://chat.example',
    );
    const other = await handle(get('https://evil.example'));
    expect(other.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(other.headers.get('Vary')).toBe('Origin');
    const refused = await handle(preflight('https://evil.example'));
    expect(refused.status).toBe(204);
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBeNull();
    expect(refused.headers.get('Access-Control-Allow-Methods')).toBeNull();
  });

  it('asks a predicate, and adds the app’s headers, methods and max age to what the protocol needs', async () => {
    const handle = withCors(ok, {
      origin: (origin) => origin.endsWith('.chat.example'),
      allowHeaders: ['X-Tenant'],
      exposeHeaders: ['X-Cost'],
      methods: ['POST'],
      maxAgeSeconds: 60,
      credentials: true,
    });
    const pre = await handle(preflight('https://eu.chat.example'));
    expect(pre.headers.get('Access-Control-Allow-Origin')).toBe('https://eu.chat.example');
    expect(pre.headers.get('Access-Control-Allow-Headers')).toMatch(/x-request-id.*X-Tenant$/i);
    expect(pre.headers.get('Access-Control-Allow-Methods')).toBe('POST');
    expect(pre.headers.get('Access-Control-Max-Age')).toBe('60');
    expect(pre.headers.get('Access-Control-Allow-Credentials')).toBe('true');
    const response = await handle(get('https://eu.chat.example'));
    expect(response.headers.get('Access-Control-Expose-Headers')).toMatch(/x-idempotent-replayed.*X-Cost$/i);
    expect((await handle(get('https://chat.example.evil'))).headers.get('Access-Control-Allow-Origin')).toBeNull();
  });

  it('passes an OPTIONS request that is not a preflight to the handler', async () => {
    const handle = withCors(async (request) => new Response(request.method), { origin: ['https://a.example'] });
    const response = await handle(
      new Request('http://app.test/x', { method: 'OPTIONS', headers: { Origin: 'https://a.example' } }),
    );
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('OPTIONS');
  });

  it.each([
    ['cors.credentials', { credentials: 'yes' }],
    ['cors.origin', { origin: 42 }],
    ['cors.origin', { origin: ['https://a.example', 7] }],
    ['cors.allowHeaders', { allowHeaders: 'X-Tenant' }],
    ['cors.allowHeaders', { allowHeaders: ['X-Tenant', 1] }],
    ['cors.exposeHeaders', { exposeHeaders: [null] }],
    ['cors.methods', { methods: 'POST' }],
    ['cors.maxAgeSeconds', { maxAgeSeconds: -1 }],
  ])('refuses a bad %s at creation with a TypeError naming it', (option, given) => {
    expect(() => withCors(ok, given as never)).toThrow(TypeError);
    expect(() => withCors(ok, given as never)).toThrow(`\`${option}\``);
  });
});
