/**
 * What a journaled agent turn reports it cost, with no `reportUsage` call of the app's: the
 * provider's usage from each model step's finish part, summed over the turn's steps — the
 * ones a former run paid for and the journal replays included — unknown (absent), never 0,
 * for a step cut before the provider reported any.
 */
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { journaled } from 'answer-once/ai/server';
import { type IdempotencyEvent, MemoryStore, type RunContext, runOnce } from 'answer-once/server';
import { describe, expect, it } from 'vitest';

const usageOf = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

type Part = Record<string, unknown> & { type: string };

/**
 * A two-step agent: the first model step calls the tool `lookup` (7 in, 2 out), the second
 * answers (11 in, 5 out). `cut(call)` says whether that model call's stream breaks, and
 * after which part (`'before-finish'`, `'after-finish'`).
 */
function twoStepAgent(cut: (call: number) => 'before-finish' | 'after-finish' | undefined = () => undefined) {
  const calls = { model: 0, tool: 0 };
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      calls.model += 1;
      const breaks = cut(calls.model);
      const answered = prompt.some((message) => message.role === 'tool');
      const parts: Part[] = answered
        ? [
            { type: 'text-start', id: '0' },
            { type: 'text-delta', id: '0', delta: 'It is 42.' },
            { type: 'text-end', id: '0' },
            { type: 'finish', finishReason: { unified: 'stop', raw: undefined }, usage: usageOf(11, 5) },
          ]
        : [
            { type: 'tool-call', toolCallId: 'call-1', toolName: 'lookup', input: '{}' },
            { type: 'finish', finishReason: { unified: 'tool-calls', raw: undefined }, usage: usageOf(7, 2) },
          ];
      return {
        // Pulled part by part: a break comes after the parts before it were read.
        stream: new ReadableStream({
          pull(controller) {
            const part = parts.shift();
            if ((part?.type === 'finish' && breaks === 'before-finish') || (!part && breaks === 'after-finish')) {
              controller.error(new Error('socket hang up'));
            } else if (part) controller.enqueue(part as never);
            else controller.close();
          },
        }),
      };
    },
  });
  const lookup = tool({
    inputSchema: jsonSchema<Record<string, never>>({ type: 'object' }),
    execute: async () => {
      calls.tool += 1;
      return { answer: 42 };
    },
  });
  const turn = async (ctx: RunContext) => {
    const agent = journaled({ ...ctx, requestId: 'req-00000001' }, { model, tools: { lookup } });
    const result = streamText({ model: agent.model, tools: agent.tools, prompt: 'what is it?', stopWhen: stepCountIs(3) });
    await result.consumeStream({ onError: () => undefined });
    const finish = await Promise.race([
      result.text,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the turn did not finish')), 5_000)),
    ]);
    if ((await result.finishReason) !== 'stop') throw new Error('the turn broke');
    return finish;
  };
  return { calls, turn };
}

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
    events.length = 0;
    const again = await runOnce(store, 'intent-1', turn, { onEvent });
    expect(again).toMatchObject({ value: 'It is 42.', replayed: false });
    expect(calls).toEqual({ model: 3, tool: 1 });
    // Paid: the first run's finished model step (7/2, replayed here) and this run's (11/5).
    expect(of(events, 'answered')).toMatchObject([{ outcome: 'ran', usage: { inputTokens: 18, outputTokens: 7 } }]);
    // Avoided: the first model step and the tool call, taken from the journal.
    expect(of(events, 'step').map(({ kind, outcome, usage }) => ({ kind, outcome, usage }))).toEqual([
      { kind: 'model', outcome: 'replayed', usage: { inputTokens: 7, outputTokens: 2 } },
      { kind: 'tool', outcome: 'replayed', usage: undefined },
      { kind: 'model', outcome: 'ran', usage: { inputTokens: 11, outputTokens: 5 } },
    ]);
  });
});
