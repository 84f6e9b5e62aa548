import { withCors } from 'answer-once/server';
import { describe, expect, it } from 'vitest';

const ok = async () => new Response('ok');
const tokens = (value: string | null) => (value ?? '').split(',').map((token) => token.trim());
const preflight = (headers: Record<string, string>) =>
  new Request('http://app.test/x', { method: 'OPTIONS', headers: { 'Access-Control-Request-Method': 'POST', ...headers } });

describe('withCors: headers a browser can parse, and preflights told apart from requests', () => {
  it('lists allowed and exposed headers as separate comma-separated names', async () => {
    const handle = withCors(ok, { allowHeaders: ['X-Tenant'], exposeHeaders: ['X-Cost'] });
    const pre = await handle(preflight({ Origin: 'https://a.example' }));
    expect(tokens(pre.headers.get('Access-Control-Allow-Headers'))).toEqual(
      expect.arrayContaining(['X-Request-Id', 'Idempotency-Key', 'Prefer', 'Content-Type', 'X-Tenant']),
    );
    const response = await handle(new Request('http://app.test/x', { headers: { Origin: 'https://a.example' } }));
    expect(tokens(response.headers.get('Access-Control-Expose-Headers'))).toEqual(
      expect.arrayContaining(['X-Idempotent-Replayed', 'Location', 'Retry-After', 'X-Request-Id', 'X-Cost']),
    );
  });

  it('marks every preflight answer Vary: Origin, refused ones too, so a cache never shares it across origins', async () => {
    const handle = withCors(ok, { origin: 'https://a.example' });
    expect((await handle(preflight({ Origin: 'https://a.example' }))).headers.get('Vary')).toBe('Origin');
    expect((await handle(preflight({ Origin: 'https://evil.example' }))).headers.get('Vary')).toBe('Origin');
  });

  it('grants nothing to a preflight without Origin, and never asks the predicate about it', async () => {
    const asked: unknown[] = [];
    const predicate = (origin: string) => {
      asked.push(origin);
      return origin.endsWith('.example');
    };
    for (const handle of [withCors(ok), withCors(ok, { origin: predicate })]) {
      const pre = await handle(preflight({}));
      expect(pre.status).toBe(204);
      expect(pre.headers.get('Access-Control-Allow-Origin')).toBeNull();
      expect(pre.headers.get('Access-Control-Allow-Methods')).toBeNull();
    }
    expect(asked).toEqual([]);
  });

  it('hands a POST carrying Access-Control-Request-Method to the handler: only OPTIONS is a preflight', async () => {
    let ran = 0;
    const handle = withCors(async () => {
      ran += 1;
      return new Response('done', { status: 201 });
    });
    const response = await handle(
      new Request('http://app.test/x', {
        method: 'POST',
        headers: { Origin: 'https://a.example', 'Access-Control-Request-Method': 'POST' },
        body: 'x',
      }),
    );
    expect(response.status).toBe(201);
    expect(await response.text()).toBe('done');
    expect(ran).toBe(1);
  });

  it('refuses a credentials option that is not a boolean, even with an explicit origin', () => {
    for (const credentials of ['yes', 1]) {
      const create = () => withCors(ok, { origin: 'https://a.example', credentials } as never);
      expect(create).toThrow(TypeError);
      expect(create).toThrow('`cors.credentials`');
    }
  });
});
