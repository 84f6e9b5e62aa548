import { createClient, type SendEvent } from 'answer-once';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { ORIGIN, useMsw } from '../support/protocol-fake.js';

const server = await useMsw();

describe('onEvent', () => {
  it('tells a UI every step of an intent, each with its requestId', async () => {
    let posts = 0;
    server.use(
      http.post(`${ORIGIN}/chat`, () => {
        posts += 1;
        if (posts === 1) return new HttpResponse(null, { status: 503, headers: { 'Retry-After': '0' } });
        return new HttpResponse(null, { status: 202, headers: { Location: '/s', 'Retry-After': '0' } });
      }),
      http.get(`${ORIGIN}/s`, () => HttpResponse.json({ answer: 1 }, { headers: { 'X-Idempotent-Replayed': 'true' } })),
    );
    const fromClient: SendEvent[] = [];
    const fromCall: SendEvent[] = [];
    const client = createClient({ baseUrl: ORIGIN, retry: { limit: 5 }, onEvent: (e) => fromClient.push(e) });
    const { requestId } = await client.send('chat', { json: {}, onEvent: (e) => fromCall.push(e) });
    expect(fromCall).toEqual([
      { type: 'attempt', requestId, attempt: 1, retryLimit: 5 },
      { type: 'retry', requestId, retry: 1, retryLimit: 5, reason: 'status', status: 503, delay: 0 },
      { type: 'attempt', requestId, attempt: 2, retryLimit: 5 },
      { type: 'accepted', requestId, statusUrl: `${ORIGIN}/s`, delay: 0 },
      { type: 'poll', requestId, polls: 1, url: `${ORIGIN}/s` },
      { type: 'replayed', requestId, status: 200 },
      { type: 'settled', requestId, outcome: 'answered', replayed: true, attempts: 2, polls: 1 },
    ]);
    expect(fromClient).toEqual(fromCall);
  });

  it('reports a failed intent as settled with its error', async () => {
    server.use(http.post(`${ORIGIN}/chat`, () => new HttpResponse(null, { status: 401 })));
    const events: SendEvent[] = [];
    const error = await createClient({ baseUrl: ORIGIN })
      .send('chat', { json: {}, onEvent: (e) => events.push(e) })
      .catch((e: unknown) => e);
    expect(events.at(-1)).toEqual({
      type: 'settled',
      requestId: expect.any(String),
      outcome: 'failed',
      error,
      attempts: 1,
      polls: 0,
    });
  });

  it('keeps sending when a listener throws', async () => {
    server.use(http.post(`${ORIGIN}/chat`, () => HttpResponse.json({ ok: true })));
    const client = createClient({
      baseUrl: ORIGIN,
      onEvent: () => {
        throw new Error('broken UI');
      },
    });
    await expect(
      client.send('chat', {
        json: {},
        onEvent: () => {
          throw new Error('also broken');
        },
      }),
    ).resolves.toMatchObject({ data: { ok: true } });
  });
});
