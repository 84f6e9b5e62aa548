/**
 * The agent turn the crash specs run: a scripted model (`MockLanguageModelV4`) whose n-th
 * step streams `script[n-1]` word by word and then at most one tool call, and the route
 * work of an AI SDK app — `streamText` over `journaled(ctx, { model, tools, toolSteps })`,
 * answered with `toUIMessageStreamResponse`. In-process (agent-rig.ts) and in the killed
 * server processes (agent-process.ts) alike.
 */
import { convertToModelMessages, stepCountIs, streamText, type ToolSet, type UIMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { type JournaledOptions, journaled } from 'answer-once/ai/server';
import type { HandlerContext } from 'answer-once/server';
import { sleep } from './sleep.js';

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never;

/** One model step of the script: its text, then at most one tool call. */
export interface ScriptedStep {
  readonly text: string;
  /** The step's text when the model is called for it again (a model is not deterministic). */
  readonly again?: string;
  readonly call?: { readonly tool: string; readonly input: Record<string, unknown> };
  /** Milliseconds the model takes over its `finish` part (a provider's late last chunk). */
  readonly finishAfterMs?: number;
}

/** The 3-tool turn of the crash matrices: a charge, an email, a database write, then the answer. */
export const AGENT_SCRIPT: readonly ScriptedStep[] = [
  { text: 'Charging 5 euros. ', call: { tool: 'charge', input: { amount: 5 } } },
  { text: 'Charged. Emailing the receipt. ', call: { tool: 'email', input: { to: 'ada@example.com' } } },
  { text: 'Saving your order. ', call: { tool: 'saveOrder', input: { order: 'o-1' } } },
  { text: 'All done, thank you. ' },
];
export const AGENT_ANSWER = AGENT_SCRIPT.map((step) => step.text).join('');
/** What the model and the person see of a tool call whose outcome nobody can know. */
export const UNCERTAIN = /may or may not have happened/;

const usage = (output: number) => ({
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
});

/** The parts of one scripted step, as a provider streams them: text in words, then the tool call. */
function partsOf(step: ScriptedStep, index: number): StreamPart[] {
  const words = step.text.split(/(?<= )/);
  const parts: unknown[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: '0' }, // a provider's id, the same in every step (Anthropic's block index)
    ...words.map((delta) => ({ type: 'text-delta', id: '0', delta })),
    { type: 'text-end', id: '0' },
  ];
  if (step.call) {
    const id = `call-${index + 1}`;
    const input = JSON.stringify(step.call.input);
    parts.push(
      { type: 'tool-input-start', id, toolName: step.call.tool },
      { type: 'tool-input-delta', id, delta: input },
      { type: 'tool-input-end', id },
      { type: 'tool-call', toolCallId: id, toolName: step.call.tool, input },
    );
  }
  parts.push({
    type: 'finish',
    finishReason: { unified: step.call ? 'tool-calls' : 'stop', raw: undefined },
    usage: usage(words.length),
  });
  return parts as StreamPart[];
}

export interface ScriptedModelOptions {
  readonly script: readonly ScriptedStep[];
  /** Called as the model is called for step `index` (0-based), before it streams; resolves to the call's number for that step (1 = first). */
  readonly called: (index: number) => number | Promise<number>;
  /** Before each part: a failure here is the model connection failing. */
  readonly beforePart?: () => Promise<void>;
  /** Called when a step's stream ended whole. */
  readonly ended?: () => void;
}

/** A deterministic model: the n-th step of a conversation (n = tool results so far + 1) streams `script[n-1]`. */
export function scriptedModel({ script, called, beforePart, ended }: ScriptedModelOptions): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const index = prompt.filter((message) => message.role === 'tool').length;
      const calls = await called(index);
      const step = script[Math.min(index, script.length - 1)]!;
      const parts = partsOf(calls > 1 && step.again !== undefined ? { ...step, text: step.again } : step, index);
      let next = 0;
      const stream = new ReadableStream<StreamPart>({
        async pull(controller) {
          try {
            await beforePart?.();
          } catch (error) {
            return controller.error(error);
          }
          if (parts[next]?.type === 'finish' && step.finishAfterMs !== undefined) await sleep(step.finishAfterMs);
          if (next === parts.length) {
            ended?.();
            return controller.close();
          }
          controller.enqueue(parts[next++]!);
        },
      });
      return { stream };
    },
  });
}

export interface AgentTurnOptions extends Pick<JournaledOptions, 'model' | 'tools' | 'toolSteps'> {
  /** The model steps at most (`stopWhen: stepCountIs(maxSteps)`). */
  readonly maxSteps: number;
  /** The SDK's errors of the turn (an app's server logs them). */
  readonly onError: (error: unknown) => void;
}

/** The work of the chat route: the request's messages, one journaled `streamText` turn, its UI message stream. */
export async function agentTurn(request: Request, ctx: HandlerContext, options: AgentTurnOptions): Promise<Response> {
  const { messages } = (await request.json()) as { messages: UIMessage[] };
  const agent = journaled(ctx, {
    model: options.model,
    tools: options.tools ?? ({} as ToolSet),
    ...(options.toolSteps && { toolSteps: options.toolSteps }),
  });
  return streamText({
    model: agent.model,
    tools: agent.tools,
    messages: await convertToModelMessages(messages),
    stopWhen: stepCountIs(options.maxSteps),
    abortSignal: ctx.signal,
    experimental_transform: agent.transform,
    onError: ({ error }) => options.onError(error),
  }).toUIMessageStreamResponse({ originalMessages: messages, generateMessageId: agent.generateMessageId });
}
