/**
 * README's 30-second `useChat` example, as written there, against the real `ai`,
 * `@ai-sdk/react` and answer-once types (its behaviour: test/ai/use-chat.test.tsx and
 * the Chromium specs of examples/ai-sdk-chat).
 */
import { useChat } from '@ai-sdk/react';
import { convertToModelMessages, type LanguageModel, streamText, type UIMessage } from 'ai';
import { describe, expectTypeOf, it } from 'vitest';
import { createClient, sessionStorageAdapter } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { createIdempotencyHandler } from 'answer-once/server';

describe("README's useChat example", () => {
  it('type-checks: the client, the transport, useChat with resume, and the handler on streamText', () => {
    const client = createClient({ storage: sessionStorageAdapter() });
    const transport = answerOnceTransport({ client, api: '/api/chat' });

    function Chat({ saved }: { saved: UIMessage[] }) {
      const { messages, sendMessage, stop } = useChat({ id: 'chat-1', messages: saved, transport, resume: true });
      expectTypeOf(messages).toEqualTypeOf<UIMessage[]>();
      expectTypeOf(sendMessage).toBeFunction();
      expectTypeOf(stop).returns.resolves.toBeVoid();
    }
    expectTypeOf(Chat).toBeFunction();

    const model = {} as LanguageModel;
    const handle = createIdempotencyHandler({
      scope: () => ({ user: 'u' }),
      handler: async (request, { signal, requestId }) => {
        const { messages } = await request.json();
        return streamText({
          model,
          messages: await convertToModelMessages(messages),
          abortSignal: signal,
        }).toUIMessageStreamResponse({ originalMessages: messages, generateMessageId: () => `answer-${requestId}` });
      },
    });
    expectTypeOf(handle).returns.resolves.toEqualTypeOf<Response>();
  });
});
