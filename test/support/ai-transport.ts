/**
 * What the answerOnceTransport specs share: a chat server per test (closed after it), the
 * user's one message sent the way useChat's submit sends it, and the assistant message the
 * AI SDK builds from what the transport streams.
 */
import { type ChatTransport, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { afterEach } from 'vitest';
import { startAiChatServer } from './ai-chat-server.js';

type AiChatServer = Awaited<ReturnType<typeof startAiChatServer>>;

/** Starts a chat server with `start(options)` in a test; closes it after that test. */
export function useAiChatServer() {
  let current: AiChatServer | undefined;
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    start: async (options?: Parameters<typeof startAiChatServer>[0]): Promise<AiChatServer> =>
      (current = await startAiChatServer(options)),
    /** The test's server (started by `start`). */
    get server(): AiChatServer {
      if (!current) throw new Error('no chat server started in this test');
      return current;
    },
    /** The POSTs the server was sent: one a send, a resend or a reconnect. */
    posts: () => (current?.requests ?? []).filter((request) => request.method === 'POST'),
  };
}

export const HI: UIMessage = { id: 'msg-user-00000001', role: 'user', parts: [{ type: 'text', text: 'hi' }] };

/** Sends `HI` as the chat's first message, the way useChat's submit does. */
export const sendHi = (transport: ChatTransport<UIMessage>, abortSignal?: AbortSignal) =>
  transport.sendMessages({ trigger: 'submit-message', chatId: 'chat-1', messageId: undefined, messages: [HI], abortSignal });

/** The assistant message the AI SDK builds from a stream, and its text. */
export async function messageOf(
  stream: ReadableStream<UIMessageChunk>,
): Promise<{ message: UIMessage | undefined; text: string }> {
  let message: UIMessage | undefined;
  for await (const next of readUIMessageStream({ stream })) message = next;
  const text = (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
  return { message, text };
}

/** The text of the assistant message the AI SDK builds from a stream. */
export const textOf = async (stream: ReadableStream<UIMessageChunk>): Promise<string> => (await messageOf(stream)).text;
