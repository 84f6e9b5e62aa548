/**
 * What our client makes of an intent the server will not run again (PROTOCOL.md § 5.7):
 * the 409 `intent-exhausted` is final — `client.send` and `client.fetch` reject with it,
 * also when it answers a resumable body's reconnect — and the model ran at most
 * `maxRuns` times, whatever the client's retry limit.
 */

import { createClient, isIntentExhaustedError, isResponseError, streaming } from 'answer-once';
import { describe, expect, it } from 'vitest';
import { loopbackRigs } from '../support/loopback-rig.js';
import { sseAnswer } from '../support/stream-support.js';

const loopback = loopbackRigs();
const RETRY = { limit: 10, delay: 1, backoffLimit: 5 };

/** A flaky provider: two events, then the model's connection breaks — on every run. */
const breaksMidAnswer = (): Response => sseAnswer(2, { breakAfter: 2, delayMs: 2 });

const post = (): RequestInit => ({ method: 'POST', body: '{"q":"hi"}', headers: { 'content-type': 'application/json' } });

/** The final error a 409 `intent-exhausted` must be: `IntentExhaustedError`, not retryable, its problem's code kept. */
function expectExhausted(error: unknown): void {
  expect(isResponseError(error)).toBe(true);
  expect(isIntentExhaustedError(error)).toBe(true);
  expect(error).toMatchObject({ status: 409, retryable: false, problem: { code: 'intent-exhausted' } });
}

describe('an exhausted intent, as the client sees it', () => {
  it('client.send rejects with the final 409 intent-exhausted once the work ran maxRuns times, retrying no further', async () => {
    const server = await loopback(() => {
      throw new Error('model down');
    });
    const client = createClient({ streaming, retry: RETRY });
    const error = await client.send(`${server.url}/api/chat`, { json: { q: 'hi' } }).catch((caught: unknown) => caught);
    expectExhausted(error);
    expect(server.calls()).toBe(3);
    expect(server.requests).toHaveLength(3);
  });

  it('client.fetch rejects a resumable body with the final 409 when a reconnect finds the intent exhausted', async () => {
    const server = await loopback(breaksMidAnswer);
    const client = createClient({ streaming, retry: RETRY });
    const response = await client.fetch(`${server.url}/api/chat`, post());
    expect(response.status).toBe(200);
    const error = await response.text().catch((caught: unknown) => caught);
    expectExhausted(error);
    expect(server.calls()).toBe(3);
  });

  it('client.fetch answers an intent already exhausted with its 409 at once, as fetch answers an error status', async () => {
    const server = await loopback(breaksMidAnswer);
    const client = createClient({ streaming, retry: RETRY });
    const init = { ...post(), headers: { 'content-type': 'application/json', 'X-Request-Id': '01JEXHAUSTEDINTENT0000001' } };
    const first = await client.fetch(`${server.url}/api/chat`, init);
    expectExhausted(await first.text().catch((caught: unknown) => caught));
    const sent = server.requests.length;
    const again = await client.fetch(`${server.url}/api/chat`, init);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'intent-exhausted' });
    expect(server.requests.length - sent).toBe(1); // final: not retried
    expect(server.calls()).toBe(3);
  });
});
