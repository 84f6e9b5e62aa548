/**
 * A two-step agent turn on the real `streamText` and the mock model of `ai/test`, its
 * model's stream breakable at a chosen point: for what a journaled turn reports it cost.
 */
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { journaled } from 'answer-once/ai/server';
import type { RunContext } from 'answer-once/server';

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
export function twoStepModel(cut: (call: number) => 'before-finish' | 'after-finish' | undefined = () => undefined) {
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
  return { calls, model, tools: { lookup } };
}

/** {@link twoStepModel}'s turn under `runOnce`: its text, or a throw when the turn broke. */
export function twoStepAgent(cut?: Parameters<typeof twoStepModel>[0]) {
  const { calls, model, tools } = twoStepModel(cut);
  const turn = async (ctx: RunContext) => {
    const agent = journaled({ ...ctx, requestId: 'req-00000001' }, { model, tools });
    const result = streamText({ model: agent.model, tools: agent.tools, prompt: 'what is it?', stopWhen: stepCountIs(3) });
    let broken: unknown;
    await result.consumeStream({ onError: (error) => (broken ??= error) });
    if (broken !== undefined) throw broken; // the model's stream broke: so does the run
    return result.text;
  };
  return { calls, turn };
}
