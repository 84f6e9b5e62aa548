/**
 * A chat whose agent asks before it books: a `book` tool with `needsApproval`, a
 * `streamText` turn through `journaled`, behind the reference handler (in-process, one
 * store), and as many tabs of the chat as a spec opens — each the AI SDK's own chat logic
 * (`AbstractChat`, what `useChat` runs) with its own client and `answerOnceTransport`,
 * sending the approval as useChat does (`sendAutomaticallyWhen:
 * lastAssistantMessageIsCompleteWithApprovalResponses`). It counts what a person would
 * pay for: bookings made and model calls.
 */
import {
  AbstractChat,
  type ChatInit,
  type ChatState,
  convertToModelMessages,
  jsonSchema,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  stepCountIs,
  streamText,
  tool,
  type UIMessage,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { createClient, type StorageAdapter } from 'answer-once';
import { answerOnceTransport, toolAnswers } from 'answer-once/ai';
import { journaled } from 'answer-once/ai/server';
import { createIdempotencyHandler, MemoryStore } from 'answer-once/server';

type StreamPart =
  Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream'] extends ReadableStream<infer Part> ? Part : never;

export const ASKED = 'Table 4 is free at eight. Shall I book it? ';
export const BOOKED = 'Booked: table 4 at eight. ';
export const NOT_BOOKED = 'Alright, I did not book it. ';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** The model's answer to `prompt`: the booking asked for, or what became of it (the tool's result in the prompt). */
function answerTo(prompt: readonly { role: string; content: unknown }[]): StreamPart[] {
  const results = prompt
    .filter((message) => message.role === 'tool')
    .flatMap((message) => message.content as { type: string; output?: { type: string } }[])
    .filter((part) => part.type === 'tool-result');
  const text = (delta: string): unknown[] => [
    { type: 'text-start', id: '0' },
    { type: 'text-delta', id: '0', delta },
    { type: 'text-end', id: '0' },
  ];
  const parts: unknown[] = [{ type: 'stream-start', warnings: [] }];
  if (results.length === 0) {
    const input = JSON.stringify({ table: 4 });
    parts.push(...text(ASKED), { type: 'tool-call', toolCallId: 'call-1', toolName: 'book', input });
  } else {
    parts.push(...text(results.at(-1)?.output?.type === 'execution-denied' ? NOT_BOOKED : BOOKED));
  }
  parts.push({
    type: 'finish',
    finishReason: { unified: results.length === 0 ? 'tool-calls' : 'stop', raw: undefined },
    usage,
  });
  return parts as StreamPart[];
}

/** A chat's state as plain arrays (what useChat keeps in React state). */
class ArrayState implements ChatState<UIMessage> {
  status: ChatState<UIMessage>['status'] = 'ready';
  error: Error | undefined;
  messages: UIMessage[];
  constructor(messages: UIMessage[]) {
    this.messages = messages;
  }
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = this.messages.map((old, at) => (at === index ? message : old));
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

class Tab extends AbstractChat<UIMessage> {
  constructor(init: ChatInit<UIMessage>, messages: UIMessage[]) {
    super({ ...init, state: new ArrayState(messages) });
  }

  /** Resolves once the tab's chat is `ready` (or `error`) again. */
  async settled(): Promise<void> {
    for (let waited = 0; this.status !== 'ready' && this.status !== 'error'; waited += 5) {
      if (waited > 10_000) throw new Error(`the chat did not settle (status ${this.status})`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** The id of the approval the last assistant message asks for. */
  get approvalId(): string {
    const part = this.lastMessage?.parts.find((p) => p.type === 'tool-book');
    const id = part && 'approval' in part ? part.approval?.id : undefined;
    if (id === undefined) throw new Error('the chat shows no approval request');
    return id;
  }
}

/** The handler, its store and counters, and `openTab()` for each tab of the chat. */
export function startApprovalRig() {
  const store = new MemoryStore();
  const counts = { bookings: 0, modelCalls: 0 };
  /** The intent ID of every POST to the chat route. */
  const posts: string[] = [];
  const model = new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      counts.modelCalls += 1;
      const parts = answerTo(prompt);
      let next = 0;
      const stream = new ReadableStream<StreamPart>({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 2));
          if (next === parts.length) return controller.close();
          controller.enqueue(parts[next++]!);
        },
      });
      return { stream };
    },
  });
  const book = tool({
    inputSchema: jsonSchema<{ table: number }>({ type: 'object', properties: { table: { type: 'number' } } }),
    needsApproval: true,
    execute: async ({ table }) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      counts.bookings += 1;
      return { table, confirmation: 'c-4' };
    },
  });
  const handle = createIdempotencyHandler({
    store,
    scope: () => ({ user: 'u' }),
    flushMs: 5,
    handler: async (request, ctx) => {
      const { messages } = (await request.json()) as { messages: UIMessage[] };
      const agent = journaled(ctx, { model, tools: { book } });
      return streamText({
        model: agent.model,
        tools: agent.tools,
        messages: await convertToModelMessages(messages),
        stopWhen: stepCountIs(3),
        abortSignal: ctx.signal,
        experimental_transform: agent.transform,
      }).toUIMessageStreamResponse({ originalMessages: messages, generateMessageId: agent.generateMessageId });
    },
  });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    if (request.method === 'POST') posts.push(request.headers.get('x-request-id') ?? '(none)');
    return handle(request);
  };

  let tabs = 0;
  /**
   * A tab of the chat, showing `messages` (what a second tab, or a reloaded page, loads from
   * where the app keeps the chat); its client keeps pending intents in `storage`, if given.
   */
  const openTab = (messages: UIMessage[] = [], { storage }: { storage?: StorageAdapter } = {}) => {
    tabs += 1;
    let ids = 0;
    return new Tab(
      {
        id: 'chat-1',
        generateId: () => `tab${tabs}-msg-${String(++ids).padStart(4, '0')}`,
        transport: answerOnceTransport({
          client: createClient({ fetch, baseUrl: 'http://127.0.0.1:9/', ...(storage && { storage }) }),
          api: 'api/chat',
          toolAnswers,
        }),
        sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
      },
      structuredClone(messages),
    );
  };
  return { counts, posts, openTab };
}

export const textOf = (message: UIMessage | undefined): string =>
  (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
