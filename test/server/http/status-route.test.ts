import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest } from '../../support/server-support.js';

const ORIGIN = 'http://app.test';

const ID = 'req-0000000001';

describe('createIdempotencyHandler: the status route reads and stops, nothing else', () => {
  it.each(['POST', 'PUT', 'PATCH'])(
    'answers %s on <statusPath>/<id> with 405 and Allow, and runs nothing',
    async (method) => {
      const app = chatApp();
      const response = await app.handle(chatRequest({ method, path: `/api/status/${ID}` }));
      expect(response.status).toBe(405);
      expect(response.headers.get('Allow')).toBe('GET, HEAD, DELETE');
      expect(await response.json()).toMatchObject({
        code: 'method-not-allowed',
        status: 405,
        requestId: ID,
        title: expect.stringContaining('GET and HEAD, and DELETE to stop'),
      });
      expect(app.calls).toHaveLength(0);
      expect(app.store.size).toBe(0);
    },
  );

  it('answers a status read of an ID that cannot be one 400 invalid-request-id, saying what an ID is', async () => {
    const response = await chatApp().handle(
      new Request(`${ORIGIN}/api/status/short`, { headers: { Authorization: 'Bearer alice' } }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid-request-id', title: expect.stringContaining('8–128') });
  });

  it('names no request ID in a 405 whose path holds no valid one', async () => {
    const response = await chatApp().handle(chatRequest({ method: 'POST', path: '/api/status/not ok' }));
    expect(response.status).toBe(405);
    expect(await response.json()).not.toHaveProperty('requestId');
  });

  it('answers a stop (DELETE) from a caller the app’s scope turns away with the app’s own answer, and stops nothing', async () => {
    const app = chatApp();
    const stop = await app.handle(new Request(`${ORIGIN}/api/status/${ID}`, { method: 'DELETE' }));
    expect(stop.status).toBe(401);
    expect(await stop.text()).toBe('sign in first');
  });

  it('allows OPTIONS too when CORS is on, and still answers preflights there', async () => {
    const app = chatApp({ cors: { origin: ['https://chat.example'] } });
    const post = await app.handle(chatRequest({ path: `/api/status/${ID}`, headers: { Origin: 'https://chat.example' } }));
    expect(post.status).toBe(405);
    expect(post.headers.get('Allow')).toBe('GET, HEAD, DELETE, OPTIONS');
    const preflight = await app.handle(
      new Request(`${ORIGIN}/api/status/${ID}`, {
        method: 'OPTIONS',
        headers: { Origin: 'https://chat.example', 'Access-Control-Request-Method': 'GET' },
      }),
    );
    expect(preflight.status).toBe(204);
    expect(app.calls).toHaveLength(0);
  });

  it('answers HEAD with the GET answer’s status and headers, without a body', async () => {
    const app = chatApp();
    await app.handle(chatRequest());
    const head = await app.handle(
      new Request(`${ORIGIN}/api/status/${ID}`, { method: 'HEAD', headers: { Authorization: 'Bearer alice' } }),
    );
    expect(head.status).toBe(200);
    expect(head.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(head.body).toBeNull();
    expect(app.calls).toHaveLength(1);
  });
});
