/**
 * The run bound (PROTOCOL.md § 5.7): however often a client resends one intent, its work
 * runs at most `maxRuns` times — the first run, each run after a failure, each takeover
 * of a lapsed lease — and from then on every attempt and the status route answer the
 * final 409 `intent-exhausted`.
 */

import {
  createIdempotencyHandler,
  encodeKey,
  fingerprintRequest,
  IntentExhaustedError,
  MemoryStore,
  runOnce,
} from 'answer-once/server';
import { type ServedHandler, serve } from 'answer-once/server/node';
import { afterEach, describe, expect, it } from 'vitest';
import { chatApp, chatRequest, statusRequest } from '../../support/server-support.js';
import { sleep } from '../../support/sleep.js';
import { sseAnswer } from '../../support/stream-support.js';

const ID = 'req-0000000001';

/** A flaky provider: two events, then the model's connection breaks — on every run. */
const breaksMidAnswer = (): Response => sseAnswer(2, { breakAfter: 2, delayMs: 2 });

const served: ServedHandler[] = [];
afterEach(async () => {
  await Promise.all(served.splice(0).map((server) => server.close()));
});

describe('the run bound', () => {
  it('never runs the work more than maxRuns times for one intent, whatever the client sends', async () => {
    let runs = 0;
    const server = await serve(
      createIdempotencyHandler({
        scope: () => ({ user: 'u' }),
        handler: () => {
          runs += 1;
          return breaksMidAnswer();
        },
      }),
    );
    served.push(server);
    const send = () =>
      fetch(`${server.url}/api/chat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Request-Id': ID },
        body: '{"q":"hi"}',
      });
    // A raw loop that resends the same ID, reading every answer to its end (bounded: 30 sends).
    const answers: { status: number; code?: string }[] = [];
    for (let sent = 0; sent < 30; sent += 1) {
      const response = await send();
      const text = await response.text();
      answers.push({ status: response.status, ...(response.status === 409 && { code: JSON.parse(text).code }) });
    }
    expect(runs).toBe(3);
    expect(answers.slice(3)).toEqual(Array(27).fill({ status: 409, code: 'intent-exhausted' }));
    const status = await fetch(`${server.url}/api/status/${ID}`);
    expect(status.status).toBe(409);
    expect(await status.json()).toMatchObject({ code: 'intent-exhausted', requestId: ID });
    expect(runs).toBe(3);
  });

  it('answers the failure of the last allowed run as final, intent-exhausted, not "resend"', async () => {
    const app = chatApp({
      maxRuns: 2,
      work: () => {
        throw new Error('model down');
      },
    });
    const first = await app.handle(chatRequest());
    expect(first.status).toBe(500);
    expect(await first.json()).toMatchObject({ code: 'intent-failed' });
    const second = await app.handle(chatRequest());
    expect(second.status).toBe(409);
    expect(await second.json()).toMatchObject({ code: 'intent-exhausted', status: 409, requestId: ID });
    const third = await app.handle(chatRequest());
    expect(third.status).toBe(409);
    expect(await third.json()).toMatchObject({ code: 'intent-exhausted' });
    expect(app.calls).toHaveLength(2);
    expect(app.events.filter((event) => event.type === 'exhausted')).toEqual([
      expect.objectContaining({ key: expect.any(String), runs: 2, requestId: ID }),
    ]);
  });

  it('counts takeovers of a dead worker’s lapsed lease as runs: past the bound the work does not run', async () => {
    const store = new MemoryStore();
    const app = chatApp({ store, maxRuns: 2 });
    const request = chatRequest();
    const key = encodeKey({ user: 'alice', session: '' }, ID);
    const fingerprint = await fingerprintRequest('POST', '/api/chat', new Uint8Array(await request.clone().arrayBuffer()));
    // Two workers claim it and die: their leases lapse unanswered (the second is a takeover).
    for (let dead = 0; dead < 2; dead += 1) {
      const claim = await store.acquire(key, fingerprint, 1);
      expect(claim).toMatchObject({ acquired: true, runs: dead + 1 });
      await sleep(5);
    }
    const answer = await app.handle(request);
    expect(answer.status).toBe(409);
    expect(await answer.json()).toMatchObject({ code: 'intent-exhausted' });
    expect(app.calls).toHaveLength(0);
    expect(await store.get(key)).toMatchObject({ state: 'completed', runs: 3 });
    const status = await app.handle(statusRequest(ID));
    expect(status.status).toBe(409);
  });

  it('refuses a maxRuns that is not a positive integer, naming it', async () => {
    const options = { scope: () => ({ user: 'u' }), handler: () => new Response('ok') };
    for (const maxRuns of [0, -1, 1.5, Number.NaN, '3'] as unknown[]) {
      expect(() => createIdempotencyHandler({ ...options, maxRuns } as never)).toThrow(/`maxRuns`/);
      await expect(runOnce(new MemoryStore(), 'k', async () => 1, { maxRuns } as never)).rejects.toThrow(/`maxRuns`/);
    }
  });
});

describe('runOnce: the run bound', () => {
  it('throws IntentExhaustedError once the work ran maxRuns times, and never runs it again', async () => {
    const store = new MemoryStore();
    let runs = 0;
    const work = async (): Promise<string> => {
      runs += 1;
      throw new Error(`provider down (${runs})`);
    };
    const outcomes: unknown[] = [];
    for (let call = 0; call < 6; call += 1) outcomes.push(await runOnce(store, 'job-1', work).catch((error) => error));
    expect(runs).toBe(3);
    expect(outcomes.slice(0, 3).map((error) => (error as Error).message)).toEqual([
      'provider down (1)',
      'provider down (2)',
      'provider down (3)',
    ]);
    for (const error of outcomes.slice(3)) {
      expect(error).toBeInstanceOf(IntentExhaustedError);
      expect(error).toMatchObject({ name: 'IntentExhaustedError', code: 'intent-exhausted', status: 409 });
    }
  });

  it('counts a takeover as a run, and settles a claim past the bound without running the work', async () => {
    const store = new MemoryStore();
    for (let dead = 0; dead < 2; dead += 1) {
      await store.acquire('job-2', '', 1);
      await sleep(5);
    }
    let runs = 0;
    const run = () => runOnce(store, 'job-2', async () => ++runs, { maxRuns: 2 });
    await expect(run()).rejects.toBeInstanceOf(IntentExhaustedError);
    await expect(run()).rejects.toMatchObject({ code: 'intent-exhausted' });
    expect(runs).toBe(0);
  });

  it('refuses a codec whose result is the one reserved for an exhausted intent', async () => {
    const store = new MemoryStore();
    const codec = { encode: () => '!answer-once:intent-exhausted', decode: (text: string) => text };
    await expect(runOnce(store, 'job-3', async () => 'x', { codec })).rejects.toThrow(/reserved for an exhausted intent/);
    expect(await store.get('job-3')).toMatchObject({ state: 'failed' });
  });
});
