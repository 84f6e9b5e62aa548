import type { HandlerContext } from 'answer-once/server';
import type OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';

/** What the app does for each tool: it gets the call's arguments and the step's key. */
export interface Tools {
  refund_order(args: { orderId: string }, idempotencyKey: string): Promise<unknown>;
}

const TOOLS: ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'refund_order',
      description: 'Refunds an order in full.',
      parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
    },
  },
];

/** A hand-written tool loop, each model call and each tool call a journaled step. */
export async function runAgent(openai: OpenAI, ctx: HandlerContext, question: string, tools: Tools): Promise<string> {
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: question }];
  for (let turn = 0; turn < 8; turn += 1) {
    // A model step: no effect, so safe to repeat; a re-run gets its recorded message.
    const message = await ctx.step(
      'model',
      async (step) => {
        const completion = await openai.chat.completions.create(
          { model: 'gpt-4.1-mini', messages, tools: TOOLS },
          { signal: step.signal },
        );
        const { usage } = completion;
        if (usage) step.reportUsage({ inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens });
        const [choice] = completion.choices;
        if (!choice) throw new Error('the model answered no choice');
        return choice.message;
      },
      { kind: 'model', repeat: 'safe' },
    );
    messages.push(message);
    const calls = (message.tool_calls ?? []).filter((call) => call.type === 'function');
    if (calls.length === 0) return message.content ?? '';
    for (const call of calls) {
      const tool = call.function.name === 'refund_order' ? tools.refund_order : undefined;
      // A tool step: runs once per intent. Its key goes to the payments API as the
      // Idempotency-Key, which dedupes a repeat: so it is safe to repeat when unknown.
      const result = tool
        ? await ctx.step(`tool:${call.function.name}`, (step) => tool(JSON.parse(call.function.arguments), step.key), {
            kind: 'tool',
            repeat: 'safe',
          })
        : { error: `no tool named ${call.function.name}` };
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) });
    }
  }
  throw new Error('the model kept calling tools');
}
