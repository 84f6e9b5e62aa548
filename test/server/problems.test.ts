/**
 * PROTOCOL.md § 9: every error the handler answers is an RFC 9457 problem, never cached,
 * naming the intent (body `requestId` and `X-Request-Id`) exactly when it is known.
 */

import { encodeKey } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, statusRequest } from '../support/server-support.js';

const ID = 'req-0000000001';

async function problemOf(response: Response): Promise<Record<string, unknown>> {
  expect(response.headers.get('Content-Type')).toBe('application/problem+json');
  expect(response.headers.get('Cache-Control')).toBe('no-store');
  return (await response.json()) as Record<string, unknown>;
}

describe('createIdempotencyHandler: problem answers', () => {
  it('answers an unknown ID on the status route 404 intent-not-found, no-store, naming the ID in body and header', async () => {
    const response = await chatApp().handle(statusRequest(ID));
    expect(response.status).toBe(404);
    expect(response.headers.get('X-Request-Id')).toBe(ID);
    expect(await problemOf(response)).toEqual({
      type: 'https://answer-once.dev/problems/intent-not-found',
      title: expect.any(String),
      status: 404,
      code: 'intent-not-found',
      requestId: ID,
    });
  });

  it('names no request ID, in body or header, when the request sent none', async () => {
    const response = await chatApp().handle(chatRequest({ id: null }));
    expect(response.status).toBe(400);
    expect(response.headers.get('X-Request-Id')).toBeNull();
    const problem = await problemOf(response);
    expect(problem).toMatchObject({ code: 'missing-request-id', status: 400 });
    expect(problem).not.toHaveProperty('requestId');
    expect(problem).not.toHaveProperty('detail');
  });

  it('says in `detail` why a running intent whose worker died is answered 503 intent-failed', async () => {
    const app = chatApp();
    // A worker took the intent and stopped: its lease is already over.
    await app.store.acquire(encodeKey({ user: 'alice', session: '' }, ID), 'fingerprint', 0);
    const response = await app.handle(statusRequest(ID));
    expect(response.status).toBe(503);
    expect(response.headers.get('X-Request-Id')).toBe(ID);
    expect(await problemOf(response)).toMatchObject({
      code: 'intent-failed',
      requestId: ID,
      detail: expect.stringContaining('resend'),
    });
    expect(app.calls).toHaveLength(0);
  });
});
