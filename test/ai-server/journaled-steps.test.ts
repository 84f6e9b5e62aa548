/**
 * `journaled` without HTTP (`runOnce`): what a model step keeps — its usage, unknown when
 * the provider reported none — what a replay reports, `generateText` journaled too, and the
 * clear errors of bad input.
 */
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { journaled, toolStep } from 'answer-once/ai/server';
import { type IdempotencyEvent, MemoryStore, type RunContext, runOnce } from 'answer-once/server';
import { describe, expect, it } from 'vitest';

const usageOf = (input: number | undefined, output: number | undefined) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

/** A model answering `text`, counting its calls; `usage` is what its provider reports. */
function countingModel(text: string, usage = usageOf(12, 3)) {
  const calls = { stream: 0, generate: 0 };
  const finish = { unified: 'stop', raw: undefined } as const;
  const model = new MockLanguageModelV4({
    doStream: async () => {
      calls.stream += 1;
      return {
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'text-start', id: '0' });
            controller.enqueue({ type: 'text-delta', id: '0', delta: text });
            controller.enqueue({ type: 'text-end', id: '0' });
            controller.enqueue({ type: 'finish', finishReason: finish, usage });
            controller.close();
          },
        }),
      };
    },
    doGenerate: async () => {
      calls.generate += 1;
      return {
        content: [{ type: 'text', text }],
        finishReason: finish,
        usage,
        warnings: [],
        response: { id: 'resp-1', modelId: 'mock', timestamp: new Date(0) },
      };
    },
  });
  return { model, calls };
}

/**
 * Runs `turn` under `runOnce` twice for one intent: the first run fails after the turn
 * (its answer lost), so the second is a re-run with the journal the first left.
 */
async function twice(turn: (ctx: RunContext & { requestId: string }) => Promise<string>) {
  const store = new MemoryStore();
  const events: IdempotencyEvent[] = [];
  const onEvent = (event: IdempotencyEvent) => events.push(event);
  const texts: string[] = [];
  await expect(
    runOnce(
      store,
      'intent-1',
      async (ctx) => {
        texts.push(await turn({ ...ctx, requestId: 'req-00000001' }));
        throw new Error('the answer was lost');
      },
      { onEvent },
    ),
  ).rejects.toThrow('the answer was lost');
  const again = await runOnce(store, 'intent-1', async (ctx) => turn({ ...ctx, requestId: 'req-00000001' }), { onEvent });
  texts.push(again.value);
  const steps = events.flatMap((event) => (event.type === 'step' ? [event] : []));
  return { texts, steps };
}

describe('journaled (answer-once/ai/server) without HTTP', () => {
  it('replays a streamed model step without a model call, reporting the usage it avoided', async () => {
    const { model, calls } = countingModel('Hello there.');
    const { texts, steps } = await twice(async (ctx) => {
      const agent = journaled(ctx, { model });
      return streamText({ model: agent.model, prompt: 'hi' }).text;
    });
    expect(texts).toEqual(['Hello there.', 'Hello there.']);
    expect(calls.stream).toBe(1);
    expect(steps.map(({ outcome, kind, usage }) => ({ outcome, kind, usage }))).toEqual([
      { outcome: 'ran', kind: 'model', usage: { inputTokens: 12, outputTokens: 3 } },
      { outcome: 'replayed', kind: 'model', usage: { inputTokens: 12, outputTokens: 3 } },
    ]);
  });

  it('keeps a model step whose provider reported no usage as unknown, never 0', async () => {
    const { model } = countingModel('Hi.', usageOf(undefined, undefined));
    const { steps } = await twice(async (ctx) => streamText({ model: journaled(ctx, { model }).model, prompt: 'hi' }).text);
    expect(steps.map((step) => step.outcome)).toEqual(['ran', 'replayed']);
    for (const step of steps) expect(step.usage).toBeUndefined();
  });

  it('journals generateText too: the re-run gets the recorded result without a model call', async () => {
    const { model, calls } = countingModel('Generated once.');
    const { texts } = await twice(
      async (ctx) => (await generateText({ model: journaled(ctx, { model }).model, prompt: 'hi' })).text,
    );
    expect(texts).toEqual(['Generated once.', 'Generated once.']);
    expect(calls.generate).toBe(1);
  });

  it('takes a call the SDK retried for the same step, not the next: the re-run replays every step in its place', async () => {
    const calls = { model: 0, tool: 0 };
    const finish = { unified: 'stop', raw: undefined } as const;
    const model = new MockLanguageModelV4({
      doGenerate: async ({ prompt }) => {
        calls.model += 1;
        if (calls.model === 1) {
          throw new APICallError({
            message: 'overloaded',
            url: 'http://127.0.0.1:9',
            requestBodyValues: {},
            isRetryable: true,
          });
        }
        const answered = prompt.some((message) => message.role === 'tool');
        return {
          content: answered
            ? [{ type: 'text', text: 'Refunded.' }]
            : [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'refund', input: '{}' }],
          finishReason: answered ? finish : { unified: 'tool-calls', raw: undefined },
          usage: usageOf(5, 1),
          warnings: [],
        };
      },
    });
    const refund = tool({
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object' }),
      execute: async () => {
        calls.tool += 1;
        return { refunded: true };
      },
    });
    const { texts } = await twice(async (ctx) => {
      const agent = journaled(ctx, { model, tools: { refund } });
      const result = await generateText({
        model: agent.model,
        tools: agent.tools,
        prompt: 'refund me',
        stopWhen: stepCountIs(3),
      });
      return result.text;
    });
    expect(texts).toEqual(['Refunded.', 'Refunded.']);
    expect(calls).toEqual({ model: 3, tool: 1 }); // the failed call, its retry, the second step: all in the first run
  }, 10_000);

  it('refuses what it cannot journal, naming it', async () => {
    const { model } = countingModel('x');
    const ctx = { requestId: 'req-00000001', step: async () => undefined, beginStep: async () => undefined } as never;
    expect(() => journaled({} as never, { model })).toThrow(/ctx/);
    expect(() => journaled(ctx, { model: 'openai/gpt-5' as never })).toThrow(/`model`.*language model object/);
    expect(() => journaled(ctx, { model, tools: {}, toolSteps: { charge: { repeat: 'safe' } } as never })).toThrow(
      /toolSteps\.charge/,
    );
    expect(() => toolStep({ toolCallId: 'call-1' })).toThrow(/journaled tool's execute/);
  });
});
