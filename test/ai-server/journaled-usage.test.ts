/**
 * What a journaled agent turn reports it cost, with no `reportUsage` call of the app's: the
 * provider's usage from each model step's finish part, summed over the turn's steps — the
 * ones a former run paid for and the journal replays included — unknown (absent), never 0,
 * for a step cut before the provider reported any.
 */
import { stepCountIs, streamText } from 'ai';
import { journaled } from 'answer-once/ai/server';
import { createIdempotencyHandler, type IdempotencyEvent, MemoryStore, runOnce } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { sleep } from '../support/sleep.js';
import { twoStepAgent, twoStepModel } from '../support/two-step-agent.js';

const of = <T extends IdempotencyEvent['type']>(events: IdempotencyEvent[], type: T) =>
  events.filter((event): event is Extract<IdempotencyEvent, { type: T }> => event.type === type);

describe('journaled (answer-once/ai/server) usage', () => {
  it("reports a two-step turn's usage as the sum of its model steps' provider usage, without the app reporting it", async () => {
    const store = new MemoryStore();
    const events: IdempotencyEvent[] = [];
    const { calls, turn } = twoStepAgent();
    const first = await runOnce(store, 'intent-1', turn, { onEvent: (event) => events.push(event) });
    expect(first).toMatchObject({ value: 'It is 42.', replayed: false, usage: { inputTokens: 18, outputTokens: 7 } });
    expect(of(events, 'answered')).toMatchObject([{ outcome: 'ran', usage: { inputTokens: 18, outputTokens: 7 } }]);
    // Its replay is the call avoided, and the whole turn's tokens are what it avoided.
    const again = await runOnce(store, 'intent-1', turn, { onEvent: (event) => events.push(event) });
    expect(again).toMatchObject({ replayed: true, usage: { inputTokens: 18, outputTokens: 7 } });
    expect(of(events, 'answered')[1]).toMatchObject({
      outcome: 'replayed',
      avoided: true,
      usage: { inputTokens: 18, outputTokens: 7 },
    });
    expect(calls).toEqual({ model: 2, tool: 1 });
  });

  it('keeps a model step cut before its finish part as unknown usage, never 0, and one cut after it with its usage', async () => {
    for (const [where, usage] of [
      ['before-finish', undefined],
      ['after-finish', { inputTokens: 11, outputTokens: 5 }],
    ] as const) {
      const events: IdempotencyEvent[] = [];
      const { turn } = twoStepAgent((call) => (call === 2 ? where : undefined));
      await expect(
        runOnce(new MemoryStore(), `intent-${where}`, turn, { onEvent: (event) => events.push(event) }),
      ).rejects.toThrow();
      const cutStep = of(events, 'step').filter((event) => event.kind === 'model')[1];
      expect(cutStep?.outcome).toBe('ran');
      expect(cutStep?.usage).toEqual(usage);
    }
  });

  it("counts a re-run's paid usage over every step of the intent, the replayed ones also reported as avoided", async () => {
    const store = new MemoryStore();
    const events: IdempotencyEvent[] = [];
    const onEvent = (event: IdempotencyEvent) => events.push(event);
    const { calls, turn } = twoStepAgent((call) => (call === 2 ? 'before-finish' : undefined));
    await expect(runOnce(store, 'intent-1', turn, { onEvent })).rejects.toThrow();
    // The broken run paid for its first model step; its cut one reported nothing: unknown, not 0.
    expect(of(events, 'answered')).toEqual([
      expect.objectContaining({ outcome: 'failed', usage: { inputTokens: 7, outputTokens: 2 } }),
    ]);
    events.length = 0;
    const again = await runOnce(store, 'intent-1', turn, { onEvent });
    expect(again).toMatchObject({ value: 'It is 42.', replayed: false });
    expect(calls).toEqual({ model: 3, tool: 1 });
    // Paid: the first run's finished model step (7/2, replayed here) and this run's (11/5).
    expect(of(events, 'answered')).toEqual([
      expect.objectContaining({
        outcome: 'ran',
        usage: { inputTokens: 18, outputTokens: 7 },
        stepsAvoided: { modelCalls: 1, toolCalls: 1, usage: { inputTokens: 7, outputTokens: 2 } },
      }),
    ]);
    // Avoided: the first model step and the tool call, taken from the journal.
    expect(of(events, 'step').map(({ kind, outcome, usage }) => ({ kind, outcome, usage }))).toEqual([
      { kind: 'model', outcome: 'replayed', usage: { inputTokens: 7, outputTokens: 2 } },
      { kind: 'tool', outcome: 'replayed', usage: undefined },
      { kind: 'model', outcome: 'ran', usage: { inputTokens: 11, outputTokens: 5 } },
    ]);
  });

  it("reports an HTTP turn's usage in its request's answered event, summed over its model steps", async () => {
    const events: IdempotencyEvent[] = [];
    const { model, tools } = twoStepModel();
    const handle = createIdempotencyHandler({
      scope: () => ({ user: 'ada', session: 's1' }),
      onEvent: (event) => events.push(event),
      handler: (_request, ctx) => {
        const agent = journaled(ctx, { model, tools });
        return streamText({
          model: agent.model,
          tools: agent.tools,
          prompt: 'what is it?',
          stopWhen: stepCountIs(3),
        }).toUIMessageStreamResponse({ generateMessageId: agent.generateMessageId });
      },
    });
    const response = await handle(
      new Request('http://app.test/api/chat', { method: 'POST', headers: { 'X-Request-Id': 'req-usage-001' }, body: '{}' }),
    );
    expect(await response.text()).toContain('It is 42.');
    for (let tries = 0; tries < 50 && of(events, 'answered').length === 0; tries += 1) await sleep(10);
    expect(of(events, 'answered')).toEqual([
      expect.objectContaining({ outcome: 'ran', usage: { inputTokens: 18, outputTokens: 7 } }),
    ]);
  });
});
