/**
 * Editing a user message with the AI SDK's own `useChat` over `answerOnceTransport`: the
 * AI SDK resends the message under its id with the new text (`sendMessage({ text,
 * messageId })`). An edit is a new intent — the server sees the new question and the
 * answer shown is its answer — whether the old answer was still streaming or done.
 *
 * An edit while the answer streams supersedes that answer. useChat does not stop the
 * answer in flight when it edits: left alone, it shows the edited question, its new
 * answer, and then the old answer appended after it, while the old run goes on (and is
 * paid for) to its end. The transport stops the old intent on the server (the stop route)
 * and hands useChat none of its chunks: the chat shows the edited question and its answer
 * only. A regenerate while the answer streams is the same.
 */
import { useChat } from '@ai-sdk/react';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createClient, memoryStorageAdapter } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { aiChatWork } from '../support/ai-chat-server.js';
import { sleep } from '../support/sleep.js';
import { stopRoutes } from '../support/stop-routes.js';
import { TestPage } from '../support/test-page.js';

afterEach(() => cleanup());

const MORE = Array.from({ length: 12 }, (_, i) => `more${i} `);
const answerTo = (text: string) => `echo(${text}) ${MORE.join('')}`;

/** The chat route and its status route (answering DELETE), the model echoing the question, a word every `delayMs`. */
const echoServer = (delayMs: number) =>
  stopRoutes(aiChatWork({ echo: true, words: MORE, delayMs }), { withDelete: true, unit: '"type":"text-delta"' });
type Server = ReturnType<typeof echoServer>;

/** `stopFirst`: the edit button stops the answer in flight first, as an edit UI may; else the edit alone. */
function Chat({ server, stopFirst, statuses }: { server: Server; stopFirst: boolean; statuses: string[] }) {
  const [transport] = useState(() =>
    answerOnceTransport({
      client: createClient({ storage: memoryStorageAdapter(), fetch: server.fetch, baseUrl: 'http://127.0.0.1:9/' }),
      api: 'api/chat',
    }),
  );
  const { messages, sendMessage, regenerate, stop, status, error } = useChat({ id: 'chat-edit', transport });
  if (statuses.at(-1) !== status) statuses.push(status);
  const shown = messages
    .map((message) => `${message.role}: ${message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')}`)
    .join(' | ');
  const asked = messages.find((message) => message.role === 'user');
  const edit = async () => {
    if (stopFirst) await stop();
    if (asked) await sendMessage({ text: 'B', messageId: asked.id });
  };
  return (
    <TestPage
      buttons={{ ask: () => sendMessage({ text: 'A' }), edit, regenerate: () => regenerate() }}
      outputs={{ status, shown, error: error?.message }}
    />
  );
}

const text = (id: string) => screen.getByTestId(id).textContent ?? '';

/** Renders the chat and asks A; the statuses useChat goes through, from the start. */
function askA(server: Server, stopFirst = false): string[] {
  const statuses: string[] = [];
  render(<Chat server={server} stopFirst={stopFirst} statuses={statuses} />);
  fireEvent.click(screen.getByText('ask'));
  return statuses;
}

/** Clicks `action` while A's answer streams; the statuses useChat went through from then on. */
async function whileStreaming(server: Server, action: 'edit' | 'regenerate', stopFirst = false) {
  const statuses = askA(server, stopFirst);
  await waitFor(() => expect(text('shown')).toContain('assistant: echo(A) more0'), { timeout: 5_000 });
  expect(text('status')).toBe('streaming');
  const from = statuses.length;
  fireEvent.click(screen.getByText(action));
  await waitFor(() => expect(text('status')).toBe('ready'), { timeout: 8_000 });
  // Both runs ended on the server (stopped, or to their last word), and the chat has shown all it was handed.
  await waitFor(() => expect(server.stats.runsEnded).toBe(2), { timeout: 8_000 });
  await sleep(100);
  return statuses.slice(from);
}

describe('useChat with answerOnceTransport: an edit is a new intent', () => {
  it('editing the question after its answer shows the new question with its own answer, no error', async () => {
    const server = echoServer(2);
    askA(server);
    await waitFor(() => expect(text('shown')).toBe(`user: A | assistant: ${answerTo('A')}`), { timeout: 5_000 });
    await waitFor(() => expect(text('status')).toBe('ready'));
    fireEvent.click(screen.getByText('edit'));
    await waitFor(() => expect(text('shown')).toBe(`user: B | assistant: ${answerTo('B')}`), { timeout: 5_000 });
    await waitFor(() => expect(text('status')).toBe('ready'));
    expect(text('error')).toBe('');
    expect(server.stats.modelCalls).toBe(2);
    expect(server.stats.deletes).toBe(0);
  }, 15_000);

  it('stopping, then editing the question while its answer streams answers the new question, never the old one, and the old run is stopped', async () => {
    const server = echoServer(40);
    await whileStreaming(server, 'edit', true);
    expect(text('shown')).toBe(`user: B | assistant: ${answerTo('B')}`);
    expect(text('error')).toBe('');
    expect(server.stats.stopsSeen).toBe(1);
    expect(server.stats.modelCalls).toBe(2);
  }, 15_000);
});

describe('useChat with answerOnceTransport: an edit while the answer streams supersedes it', () => {
  it('shows the edited question and its answer only, and stops the old run on the server', async () => {
    const server = echoServer(40);
    const statuses = await whileStreaming(server, 'edit');

    expect(text('shown')).toBe(`user: B | assistant: ${answerTo('B')}`);
    expect(text('error')).toBe('');
    expect(server.stats.stopsSeen).toBe(1);
    // Ready once, at the end: never while the new answer was still coming.
    expect(statuses.filter((status) => status === 'ready')).toEqual(['ready']);
    expect(statuses.at(-1)).toBe('ready');
    expect(server.stats.deletes).toBe(1);
    expect(server.stats.modelCalls).toBe(2);
    // The old run stopped mid-answer: the new one wrote all of its words, the old far fewer.
    expect(server.stats.written()).toBeLessThan(2 * (MORE.length + 1));
  }, 20_000);

  it('a regenerate while the answer streams shows the new answer only, and stops the old run on the server', async () => {
    const server = echoServer(40);
    await whileStreaming(server, 'regenerate');

    expect(text('shown')).toBe(`user: A | assistant: ${answerTo('A')}`);
    expect(text('error')).toBe('');
    expect(server.stats.stopsSeen).toBe(1);
    expect(server.stats.deletes).toBe(1);
    expect(server.stats.modelCalls).toBe(2);
    expect(server.stats.written()).toBeLessThan(2 * (MORE.length + 1));
  }, 20_000);
});
