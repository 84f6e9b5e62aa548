/**
 * Editing a user message with the AI SDK's own `useChat` over `answerOnceTransport`: the
 * AI SDK resends the message under its id with the new text (`sendMessage({ text,
 * messageId })`). An edit is a new intent — the server sees the new question and the
 * answer shown is its answer — whether the old answer was still streaming or done.
 */
import { useChat } from '@ai-sdk/react';
import { useState } from 'react';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient, memoryStorageAdapter } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { createIdempotencyHandler } from 'answer-once/server';
import { aiChatWork } from '../support/ai-chat-server.js';

afterEach(() => cleanup());

const MORE = Array.from({ length: 8 }, (_, i) => `more${i} `);

function echoServer(delayMs: number) {
  const stats = { modelCalls: 0 };
  const work = aiChatWork({ echo: true, words: MORE, delayMs });
  const handle = createIdempotencyHandler({
    scope: () => ({ user: 'u' }),
    handler: (request, context) => {
      stats.modelCalls += 1;
      return work(request, context);
    },
  });
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => handle(new Request(input, init));
  return { stats, fetch: fetch as typeof globalThis.fetch };
}

function Chat({ server }: { server: ReturnType<typeof echoServer> }) {
  const [transport] = useState(() =>
    answerOnceTransport({
      client: createClient({ storage: memoryStorageAdapter(), fetch: server.fetch, baseUrl: 'http://127.0.0.1:9/' }),
      api: 'api/chat',
    }),
  );
  const { messages, sendMessage, stop, status, error } = useChat({ id: 'chat-edit', transport });
  const shown = messages
    .map((message) => `${message.role}: ${message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')}`)
    .join(' | ');
  const asked = messages.find((message) => message.role === 'user');
  return (
    <div>
      <button type="button" onClick={() => void sendMessage({ text: 'A' })}>
        ask
      </button>
      <button
        type="button"
        onClick={async () => {
          // An edit UI stops the answer in flight first (useChat would stream both).
          await stop();
          if (asked) await sendMessage({ text: 'B', messageId: asked.id });
        }}
      >
        edit
      </button>
      <output data-testid="status">{status}</output>
      <output data-testid="shown">{shown}</output>
      <output data-testid="error">{error?.message}</output>
    </div>
  );
}

const answerTo = (text: string) => `echo(${text}) ${MORE.join('')}`;
const text = (id: string) => screen.getByTestId(id).textContent;

describe('useChat with answerOnceTransport: an edit is a new intent', () => {
  it('editing the question after its answer shows the new question with its own answer, no error', async () => {
    const server = echoServer(2);
    render(<Chat server={server} />);
    fireEvent.click(screen.getByText('ask'));
    await waitFor(() => expect(text('shown')).toBe(`user: A | assistant: ${answerTo('A')}`), { timeout: 5_000 });
    await waitFor(() => expect(text('status')).toBe('ready'));
    fireEvent.click(screen.getByText('edit'));
    await waitFor(() => expect(text('shown')).toBe(`user: B | assistant: ${answerTo('B')}`), { timeout: 5_000 });
    await waitFor(() => expect(text('status')).toBe('ready'));
    expect(text('error')).toBe('');
    expect(server.stats.modelCalls).toBe(2);
  }, 15_000);

  it('editing the question while its answer streams answers the new question, never the old one', async () => {
    const server = echoServer(40);
    render(<Chat server={server} />);
    fireEvent.click(screen.getByText('ask'));
    await waitFor(() => expect(text('shown')).toContain('assistant: echo(A)'), { timeout: 5_000 });
    expect(text('status')).toBe('streaming');
    fireEvent.click(screen.getByText('edit'));
    await waitFor(() => expect(text('shown')).toBe(`user: B | assistant: ${answerTo('B')}`), { timeout: 8_000 });
    await waitFor(() => expect(text('status')).toBe('ready'));
    expect(text('error')).toBe('');
    expect(server.stats.modelCalls).toBe(2);
  }, 15_000);
});
