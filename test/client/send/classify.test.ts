/**
 * `classify()`, what one response means for the intent, over a table of answers: the
 * answer (`done`: ky finishes, a 2xx is the data, anything else an error), "still running"
 * (`accepted`: poll), the same request again (`retry`), the original request again
 * (`resend`). The codes are read from JSON problem bodies only.
 */
import { describe, expect, it } from 'vitest';
import { classify } from '../../../src/client/send/classify.js';

const RETRY = [408, 425, 429, 500, 502, 503, 504];
const NOW = Date.parse('2026-12-01T12:00:00Z');

function answer(status: number, body?: unknown, headers: Record<string, string> = {}, type = 'application/problem+json') {
  const text = body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body);
  return new Response(status === 304 ? null : text, {
    status,
    headers: { ...(text !== null && { 'content-type': type }), ...headers },
  });
}

describe('classify', () => {
  it.each([
    ['a 200, whatever its body says', answer(200, { code: 'intent-failed' }, {}, 'application/json')],
    ['a 304', answer(304)],
    ['a 399', answer(399, { code: 'intent-failed' })],
    ['a final 422', answer(422, { code: 'request-id-reused' })],
    ['a 422 whose text body only looks like a problem', answer(422, '{"code":"intent-failed"}', {}, 'text/plain')],
    ['a 404 without a code', answer(404)],
    ['a 404 with a code of its own', answer(404, { code: 'no-such-route' })],
    ['a 410 saying intent-not-found (only a 404 says it)', answer(410, { code: 'intent-not-found' })],
    ['a 409 with a conflict code', answer(409, { code: 'edit-conflict' })],
    ['a 503 when 503 is not a retry status', answer(503)],
    ['a 400 with unparsable JSON', answer(400, '{oops')],
  ])('lets ky finish %s', async (_, response) => {
    const statuses = response.status === 503 ? [500] : RETRY;
    expect(await classify(response, statuses, NOW)).toEqual({ kind: 'done' });
  });

  it('polls a 202 at its Location, with its Retry-After, whatever its body says', async () => {
    const response = answer(202, { code: 'intent-failed' }, { location: '/api/status/x', 'retry-after': '2' });
    expect(await classify(response, RETRY, NOW)).toEqual({ kind: 'accepted', location: '/api/status/x', retryAfter: 2_000 });
    expect(await classify(answer(202), RETRY, NOW)).toEqual({ kind: 'accepted', location: null, retryAfter: undefined });
  });

  it('polls a 409 in progress that names a Location; retries one without, as in-progress', async () => {
    expect(await classify(answer(409, undefined, { location: '/api/status/x' }), RETRY, NOW)).toMatchObject({
      kind: 'accepted',
      location: '/api/status/x',
    });
    const inProgress = { kind: 'retry', reason: 'in-progress', retryAfter: undefined };
    expect(await classify(answer(409), RETRY, NOW)).toEqual(inProgress);
    expect(await classify(answer(409, { code: 'request-in-progress' }), RETRY, NOW)).toEqual(inProgress);
    expect(await classify(answer(409, { code: null }), RETRY, NOW)).toEqual(inProgress);
  });

  it('sends the original again for intent-failed at any status, and for a 404 intent-not-found', async () => {
    expect(await classify(answer(422, { code: 'intent-failed' }, { 'retry-after': '1' }), RETRY, NOW)).toEqual({
      kind: 'resend',
      reason: 'intent-failed',
      retryAfter: 1_000,
    });
    expect(await classify(answer(400, { code: 'intent-failed' }), RETRY, NOW)).toMatchObject({ kind: 'resend' });
    expect(await classify(answer(404, { code: 'intent-not-found' }), RETRY, NOW)).toEqual({
      kind: 'resend',
      reason: 'intent-not-found',
      retryAfter: undefined,
    });
  });

  it('retries a retry status as status, with its Retry-After', async () => {
    expect(await classify(answer(503, { code: 'store-unavailable' }, { 'retry-after': '3' }), RETRY, NOW)).toEqual({
      kind: 'retry',
      reason: 'status',
      retryAfter: 3_000,
    });
    expect(await classify(answer(500, 'oops', {}, 'text/plain'), RETRY, NOW)).toMatchObject({
      kind: 'retry',
      reason: 'status',
    });
    // A Location makes only a 409 in progress a 202; a 503 that names one is still a retry.
    expect(await classify(answer(503, undefined, { location: '/api/status/x' }), RETRY, NOW)).toMatchObject({
      kind: 'retry',
    });
  });
});
