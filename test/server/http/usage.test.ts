/**
 * `ctx.reportUsage`: what the model reported it cost is kept with the answer, validated,
 * and handed on with every replay of it (the `replayed` event's `usage`; the `answered`
 * event carries it as the tokens avoided, test/otel).
 */

import { createIdempotencyHandler, type HandlerContext, type IdempotencyEvent, MemoryStore } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { sleep } from '../../support/sleep.js';

const encoder = new TextEncoder();

function app(handler: (request: Request, ctx: HandlerContext) => Response | Promise<Response>) {
  const events: IdempotencyEvent[] = [];
  const handle = createIdempotencyHandler({
    store: new MemoryStore(),
    scope: () => ({ user: 'ada', session: 's1' }),
    handler,
    onEvent: (event) => events.push(event),
  });
  const replayed = () => events.flatMap((event) => (event.type === 'replayed' ? [event.usage] : []));
  return { handle, events, replayed };
}

const send = (id = 'usage-test-01') =>
  new Request('http://app.test/api/chat', { method: 'POST', headers: { 'X-Request-Id': id }, body: 'q' });

describe('ctx.reportUsage', () => {
  it('keeps the last report of a run and hands it on with the replay', async () => {
    const { handle, replayed } = app((_request, { reportUsage }) => {
      reportUsage({ inputTokens: 10, outputTokens: 1 });
      reportUsage({ inputTokens: 10, outputTokens: 64, reasoningTokens: 12 });
      return Response.json({ answer: 'hi' });
    });
    await (await handle(send())).text();
    await (await handle(send())).text();
    expect(replayed()).toEqual([{ inputTokens: 10, outputTokens: 64, reasoningTokens: 12 }]);
  });

  it('leaves out counters a provider reports as unknown (undefined)', async () => {
    const { handle, replayed } = app((_request, { reportUsage }) => {
      reportUsage({ inputTokens: 5, outputTokens: undefined, cachedInputTokens: undefined });
      return new Response('ok');
    });
    await (await handle(send())).text();
    await (await handle(send())).text();
    expect(replayed()).toEqual([{ inputTokens: 5 }]);
  });

  it.each([
    [{ inputTokens: -1 }, /`usage.inputTokens` must be a non-negative integer; got -1/],
    [{ outputTokens: 1.5 }, /`usage.outputTokens` must be a non-negative integer; got 1.5/],
    [{ outputTokens: Number.NaN }, /`usage.outputTokens` must be a non-negative integer/],
    [{ inputTokens: '12' }, /`usage.inputTokens` must be a non-negative integer; got "12"/],
    [
      { inputTokenDetails: { cacheReadTokens: 3 } },
      /`usage.inputTokenDetails` must be a non-negative integer; got an object/,
    ],
    [{ 'bad name': 1 }, /`usage` must be counters named like `inputTokens`/],
    [Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`c${i}`, 1])), /`usage` must be at most 32 counters/],
    [null, /`usage` must be an object of token counters; got null/],
    [[1, 2], /`usage` must be an object of token counters; got an array/],
  ])('refuses %j with a TypeError naming what was wrong, keeping the last good report', async (bad, message) => {
    let thrown: unknown;
    const { handle, replayed } = app((_request, { reportUsage }) => {
      reportUsage({ inputTokens: 7 });
      try {
        reportUsage(bad as never);
      } catch (error) {
        thrown = error;
      }
      return new Response('ok');
    });
    await (await handle(send())).text();
    await (await handle(send())).text();
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as Error).message).toMatch(message);
    expect(replayed()).toEqual([{ inputTokens: 7 }]);
  });

  it('keeps the usage reported before a stop with the stopped answer', async () => {
    const { handle, replayed } = app((_request, { reportUsage, signal }) => {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (signal.aborted) return controller.close();
          if (sent === 2) reportUsage({ inputTokens: 900, outputTokens: 2 }); // what was generated so far
          await sleep(10);
          controller.enqueue(encoder.encode(`data: token${sent++}\n\n`));
        },
      });
      return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
    });
    const first = await handle(send());
    const reader = first.body!.getReader();
    for (let i = 0; i < 4; i += 1) await reader.read();
    const stop = await handle(new Request('http://app.test/api/status/usage-test-01', { method: 'DELETE' }));
    expect(stop.status).toBeLessThan(300);
    while (!(await reader.read()).done);
    const replay = await handle(send());
    expect(replay.headers.get('X-Idempotent-Stopped')).toBe('true');
    await replay.text();
    expect(replayed()).toEqual([{ inputTokens: 900, outputTokens: 2 }]);
  });
});
