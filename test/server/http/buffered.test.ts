/**
 * A store without answer logs (a custom `IdempotencyStore` of 0.1's shape) keeps the
 * buffered behaviour (PROTOCOL.md § 14.11): the same promises as the state table, through
 * the store's `wait` instead of an attached log.
 */

import { MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { chatApp, chatRequest, gate, heldResend, recordOps, until } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';

const ID = 'req-0000000001';
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const buffered = () => recordOps(new MemoryStore());

/** A store without logs that counts its calls: a resend's cost in round trips (one per call on Redis). */
function counted() {
  const inner = new MemoryStore();
  const calls = { acquire: 0, wait: 0 };
  const store = recordOps(inner, {
    acquire: (...args) => ((calls.acquire += 1), inner.acquire(...args)),
    wait: (...args) => ((calls.wait += 1), inner.wait(...args)),
  });
  return { store, calls };
}

describe('createIdempotencyHandler on a store without answer logs', () => {
  it('holds a resend with Prefer: wait and answers it with the stored answer once the work completes', async () => {
    const release = gate();
    const { store, calls } = counted();
    const app = chatApp({ store, work: () => release.promise.then(() => undefined) });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    const response = await heldResend(app, release, 100);
    expect(response.status).toBe(200);
    expect(response.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(response.headers.get('Preference-Applied')).toBe('wait=5');
    expect(await response.json()).toEqual(await (await first).json());
    expect(app.calls).toHaveLength(1);
    // The resend cost one acquire and one wait, not a second claim after it.
    expect(calls).toEqual({ acquire: 2, wait: 1 });
  });

  it('answers a resend without Prefer: wait 202 at once, and one whose wait ran out 202 after it', async () => {
    const release = gate();
    const { store, calls } = counted();
    const app = chatApp({ store, maxWaitMs: 1_000, work: () => release.promise.then(() => undefined) });
    const first = app.handle(chatRequest());
    await until(() => app.calls.length > 0);
    expect((await app.handle(chatRequest())).status).toBe(202);
    expect(calls).toEqual({ acquire: 2, wait: 0 }); // no wait asked, none made
    const start = performance.now();
    const waited = await app.handle(chatRequest({ headers: { Prefer: 'wait=60' } }));
    expect(waited.status).toBe(202);
    expect(waited.headers.get('Preference-Applied')).toBe('wait=1');
    expect(performance.now() - start).toBeGreaterThanOrEqual(990);
    expect(calls).toEqual({ acquire: 3, wait: 1 }); // the held one: one claim, one wait, then its 202
    release.open();
    await first;
    expect(app.calls).toHaveLength(1);
  });

  it('delivers an answer over maxResponseBytes once while it streams, then says on replay that it cannot be replayed', async () => {
    const release = gate();
    const app = chatApp({
      store: buffered(),
      maxResponseBytes: 8,
      work: () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async start(controller) {
              controller.enqueue(bytes('0123456789 over the limit, '));
              await release.promise;
              controller.enqueue(bytes('and the rest'));
              controller.close();
            },
          }),
        ),
    });
    // The caller has its response (headers and the first bytes) before the body ended.
    const first = await app.handle(chatRequest());
    expect(first.status).toBe(200);
    expect(first.headers.get('X-Request-Id')).toBe(ID);
    release.open();
    expect(await first.text()).toBe('0123456789 over the limit, and the rest');
    await sleep(20); // the outcome is written once the body ended
    const replay = await app.handle(chatRequest());
    expect(replay.status).toBe(410);
    expect(await replay.json()).toMatchObject({ code: 'response-not-replayable', answeredStatus: 200, requestId: ID });
    expect(app.calls).toHaveLength(1);
  });
});
