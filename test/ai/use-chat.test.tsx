/**
 * The AI SDK's own `useChat` (`@ai-sdk/react`) with `answerOnceTransport`, under
 * StrictMode, against `streamText(…).toUIMessageStreamResponse()` behind the reference
 * handler (called in-process: the client's `fetch` is the handler).
 */
import { useChat } from '@ai-sdk/react';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import type { UIMessage } from 'ai';
import { createClient, memoryStorageAdapter, type StorageAdapter } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { createIdempotencyHandler } from 'answer-once/server';
import { StrictMode, useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { type AiChatOptions, aiChatWork } from '../support/ai-chat-server.js';
import { TestPage } from '../support/test-page.js';

afterEach(() => cleanup());

const WORDS = Array.from({ length: 12 }, (_, i) => `word${i} `);
const FULL = WORDS.join('');

function chatServer(options: AiChatOptions = {}) {
  const stats = { modelCalls: 0, posts: 0 };
  const work = aiChatWork({ words: WORDS, delayMs: 10, ...options });
  const handle = createIdempotencyHandler({
    scope: () => ({ user: 'u' }),
    handler: (request, context) => {
      stats.modelCalls += 1;
      return work(request, context);
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
  storage: StorageAdapter;
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
  const { messages, sendMessage, status, error } = useChat({ id: 'chat-1', transport, resume });
  const answer = messages
    .filter((message) => message.role === 'assistant')
    .map((message) => message.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''))
    .join('|');
  return (
    <TestPage buttons={{ send: () => sendMessage({ text: 'hi' }) }} outputs={{ status, answer, error: error?.message }} />
  );
}

/** Renders a fresh page's Chat under StrictMode, sends, and waits for the whole answer and `ready`. */
async function sendAndAwaitAnswer(server: ReturnType<typeof chatServer>): Promise<void> {
  render(
    <StrictMode>
      <Chat storage={memoryStorageAdapter()} server={server} />
    </StrictMode>,
  );
  fireEvent.click(screen.getByText('send'));
  await waitFor(() => expect(screen.getByTestId('answer').textContent).toBe(FULL), { timeout: 5_000 });
  await waitFor(() => expect(screen.getByTestId('status').textContent).toBe('ready'));
}

describe('useChat with answerOnceTransport', () => {
  it('streams the answer into the assistant message, one model call', async () => {
    const server = chatServer();
    await sendAndAwaitAnswer(server);
    expect(server.stats.modelCalls).toBe(1);
  });

  it('shows the new answer in place of the partial one when the answer restarts on the server: no error, no seam', async () => {
    // The first run's stream breaks after a few words; the client resends, the work runs
    // again and the server's answer restarts (the restart marker, then the new run).
    const server = chatServer({ breakFirstAfter: 7 });
    await sendAndAwaitAnswer(server);
    expect(screen.getByTestId('answer').textContent).toBe(FULL);
    expect(screen.getByTestId('error').textContent).toBe('');
    expect(server.stats.modelCalls).toBe(2);
  });

  it('resumes a pending intent on mount (resume: true, StrictMode) with one request and no duplicated text', async () => {
    const server = chatServer({ delayMs: 20 });
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
