/**
 * client.fetch's resumable body against servers that would make it loop: a model that
 * breaks mid-answer on every run, a producer that restarts on every reconnect, a stream
 * of keepalives that never ends. Every loop ends, in count and in time, with a typed
 * error; the scripted server counts the requests (each one a possible model run).
 */

import {
  type DeadlineExceededError,
  isAnswerRestartedError,
  isDeadlineExceededError,
  isIntentExhaustedError,
  isIntentFailedError,
} from 'answer-once';
import { describe, expect, it } from 'vitest';
import { BASE, scriptedClient } from '../../support/scripted-fetch.js';
import { sleep } from '../../support/sleep.js';
import { errorMarker, generationAnswer, positionedEvents, rerunAnswer, restartMarker } from '../../support/sse-response.js';

const encoder = new TextEncoder();

const failure = (body: Promise<unknown>) =>
  body.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('client.fetch: a resend that may run the work again is not progress', () => {
  it('runs a model that breaks mid-answer on every run at most 1 + retry.limit times, then fails with IntentFailedError', async () => {
    // Every request runs the work again (its record is `failed`): a new generation, its
    // restart marker when the request named an older one, two events, the error marker.
    const { server, client, events } = scriptedClient(
      (request, n) => rerunAnswer(request, n, { base: 1000, events: [`a${n}`, `b${n}`], tail: [errorMarker()] }),
      { retry: { limit: 3, delay: 0 }, totalTimeout: 3000 },
    );
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    const error = await failure(response.text());
    expect(isIntentFailedError(error)).toBe(true);
    expect(server.seen).toHaveLength(4);
    expect(events.filter((event) => event.type === 'settled')).toMatchObject([{ outcome: 'failed' }]);
  });

  it('stops following a producer that restarts on every reconnect: AnswerRestartedError after retry.limit restarts', async () => {
    // A crash-looping producer: each reconnect is answered by a new generation (its marker
    // and one new event), then the connection drops.
    const { server, client, events } = scriptedClient(
      (request, n) => rerunAnswer(request, n, { base: 2000, events: [`t${n}`], end: 'cut' }),
      { retry: { limit: 3, delay: 0 } },
    );
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    const error = await failure(response.text());
    expect(isAnswerRestartedError(error)).toBe(true);
    expect(error).toMatchObject({ restarts: 4, generation: 2005 });
    // The first answer, then one reconnect per restart: the fourth restart is past the limit.
    expect(server.seen).toHaveLength(5);
    expect(events.filter((event) => event.type === 'restart')).toHaveLength(3);
  });

  it('ends a body at once on the intent-exhausted error marker with IntentExhaustedError: no resend', async () => {
    const { server, client } = scriptedClient(
      (_request, n) =>
        generationAnswer(5000 + n, [...positionedEvents(5000 + n, ['one']), errorMarker(409, 'intent-exhausted')]),
      { retry: { limit: 3, delay: 0 } },
    );
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    const error = await failure(response.text());
    expect(isIntentExhaustedError(error)).toBe(true);
    expect(error).toMatchObject({ status: 409, retryable: false });
    expect(server.seen).toHaveLength(1);
  });

  it('still follows one restart and one error-marker resend within the limit to the whole answer', async () => {
    const { server, client } = scriptedClient(
      (request, n) => rerunAnswer(request, n, { base: 3000, events: [`x${n}`], tail: n === 1 ? [errorMarker()] : [] }),
      { retry: { limit: 1, delay: 0 } },
    );
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    const [first] = positionedEvents(3001, ['x1']);
    const [second] = positionedEvents(3002, ['x2']);
    expect(await response.text()).toBe(first! + restartMarker(3002) + second!);
    expect(server.seen).toHaveLength(2);
  });
});

/** A body of `generation` with `parts`, then a keepalive comment every `everyMs` until `forMs` passed. */
function keepalives(generation: number, parts: readonly string[], everyMs: number, forMs: number): Response {
  const startedAt = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(encoder.encode(part));
    },
    pull(controller) {
      return new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          if (Date.now() - startedAt >= forMs) controller.close();
          else controller.enqueue(encoder.encode(':keepalive\n\n'));
          resolve();
        }, everyMs);
      });
    },
    cancel() {
      clearTimeout(timer);
    },
  });
  return new Response(body, {
    headers: { 'content-type': 'text/event-stream', 'x-idempotent-generation': String(generation) },
  });
}

describe('client.fetch: a body that never ends is bounded', () => {
  it('ends a stream of keepalive comments after idleTimeout with DeadlineExceededError, the events before it read', async () => {
    const [one] = positionedEvents(41, ['one']);
    const { server, client } = scriptedClient(() => keepalives(41, [one!], 20, 5_000), { idleTimeout: 300 });
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    const startedAt = Date.now();
    let text = '';
    const error = await (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return undefined;
        text += value;
      }
    })().catch((thrown: unknown) => thrown);
    const elapsed = Date.now() - startedAt;
    expect(isDeadlineExceededError(error)).toBe(true);
    expect(error).toMatchObject({ option: 'idleTimeout', totalTimeout: 300 });
    expect(text.startsWith(one!)).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(4_000);
    expect(server.seen).toHaveLength(1);
  });

  it('bounds it by totalTimeout when idleTimeout is not set', async () => {
    const [one] = positionedEvents(41, ['one']);
    const { client } = scriptedClient(() => keepalives(41, [one!], 20, 5_000), { totalTimeout: 300 });
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    const error = (await failure(response.text())) as DeadlineExceededError;
    expect(isDeadlineExceededError(error)).toBe(true);
    expect([error.option, error.totalTimeout]).toEqual(['idleTimeout', 300]);
  });

  it('reads a body that keeps bringing events for longer than idleTimeout to its end', async () => {
    const tokens = positionedEvents(41, ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']);
    let index = 0;
    const { client } = scriptedClient(
      () =>
        new Response(
          new ReadableStream<Uint8Array>({
            async pull(controller) {
              await sleep(80);
              if (index === tokens.length) controller.close();
              else controller.enqueue(encoder.encode(tokens[index++]));
            },
          }),
          { headers: { 'content-type': 'text/event-stream', 'x-idempotent-generation': '41' } },
        ),
      { idleTimeout: 250 },
    );
    const response = await client.fetch(`${BASE}chat`, { method: 'POST', body: 'q' });
    expect(await response.text()).toBe(tokens.join(''));
  });
});
