/**
 * The AI SDK's own `useChat` (`@ai-sdk/react`) with `answerOnceTransport`, under
 * StrictMode, against `streamText(…).toUIMessageStreamResponse()` behind the reference
 * handler (called in-process: the client's `fetch` is the handler).
 */
import { useChat } from '@ai-sdk/react';
import { simulateReadableStream, streamText, type UIMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { StrictMode, useState } from 'react';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, memoryStorageAdapter, type IntentStorage } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { createIdempotencyHandler } from 'answer-once/server';

afterEach(() => cleanup());

const WORDS = Array.from({ length: 12 }, (_, i) => `word${i} `);
const FULL = WORDS.join('');

function chatServer(delayMs = 10) {
  const stats = { modelCalls: 0, posts: 0 };
  const handle = createIdempotencyHandler({
    scope: () => ({ user: 'u' }),
    handler: async (request, { signal }) => {
      stats.modelCalls += 1;
      await request.text();
      const model = new MockLanguageModelV4({
        doStream: async () => ({
          stream: simulateReadableStream({
            chunkDelayInMs: delayMs,
            chunks: [
              { type: 'text-start', id: 't1' },
              ...WORDS.map((delta) => ({ type: 'text-delta' as const, id: 't1', delta })),
              { type: 'text-end', id: 't1' },
              {
                type: 'finish',
                finishReason: { unified: 'stop', raw: undefined },
                usage: {
                  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
                  outputTokens: { total: 12, text: 12, reasoning: undefined },
                },
              },
            ],
          }),
        }),
      });
      return streamText({ model, prompt: 'hi', abortSignal: signal }).toUIMessageStreamResponse();
    },
  });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.method === 'POST') stats.posts += 1;
    return handle(request);
  };
  return { stats, fetch: fetch as typeof globalThis.fetch };
}

function Chat({
  storage,
  server,
  resume = false,
}: {
  storage: IntentStorage;
  server: ReturnType<typeof chatServer>;
  resume?: boolean;
}) {
  // One client and one transport for the page, as an app keeps them (module scope or state).
  const [transport] = useState(() =>
    answerOnceTransport({
      client: createClient({ storage, fetch: server.fetch, baseUrl: 'http://127.0.0.1:9/' }),
      api: 'api/chat',
    }),
  );
  const { messages, sendMessage, status } = useChat({ id: 'chat-1', transport, resume });
  const answer = messages
    .filter((message) => message.role === 'assistant')
    .map((message) => message.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''))
    .join('|');
  return (
    <div>
      <button type="button" onClick={() => void sendMessage({ text: 'hi' })}>
        send
      </button>
      <output data-testid="status">{status}</output>
      <output data-testid="answer">{answer}</output>
    </div>
  );
}

describe('useChat with answerOnceTransport', () => {
  it('streams the answer into the assistant message, one model call', async () => {
    const server = chatServer();
    render(
      <StrictMode>
        <Chat storage={memoryStorageAdapter()} server={server} />
      </StrictMode>,
    );
    fireEvent.click(screen.getByText('send'));
    await waitFor(() => expect(screen.getByTestId('answer').textContent).toBe(FULL), { timeout: 5_000 });
    await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('ready'));
    expect(server.stats.modelCalls).toBe(1);
  });

  it('resumes a pending intent on mount (resume: true, StrictMode) with one request and no duplicated text', async () => {
    const server = chatServer(20);
    const storage = memoryStorageAdapter();
    // The previous page sent the message and was reloaded mid-answer: its intent is in storage.
    const gone = new AbortController();
    const page1 = answerOnceTransport({
      client: createClient({ storage, fetch: server.fetch, baseUrl: 'http://127.0.0.1:9/', signal: gone.signal }),
      api: 'api/chat',
    });
    const user: UIMessage = { id: 'msg-user-00000001', role: 'user', parts: [{ type: 'text', text: 'hi' }] };
    const reader = (
      await page1.sendMessages({
        trigger: 'submit-message',
        chatId: 'chat-1',
        messageId: undefined,
        messages: [user],
        abortSignal: undefined,
      })
    ).getReader();
    await reader.read();
    const kept = memoryStorageAdapter();
    for (const intent of await storage.list()) await kept.save(intent);
    gone.abort();
    const postsBefore = server.stats.posts;
    await act(async () => {
      render(
        <StrictMode>
          <Chat storage={kept} server={server} resume />
        </StrictMode>,
      );
    });
    await waitFor(() => expect(screen.getByTestId('answer').textContent).toBe(FULL), { timeout: 5_000 });
    expect(server.stats.posts - postsBefore).toBe(1);
    expect(server.stats.modelCalls).toBe(1);
  });
});
