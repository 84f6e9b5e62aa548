/**
 * useSend under a server that would make the client loop or relay: a streamed answer
 * whose model breaks on every run ends `failed` after a bounded number of requests, and a
 * stored intent that names another origin is refused on resume — shown `failed` with
 * `StoredIntentError`, nothing sent, the record gone. And what a stream may say: a body
 * event named like a marker is body, and a resume answered from the start (a proxy that
 * dropped `Last-Event-ID`) shows no word twice.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import {
  type AnswerOnceClient,
  isIntentFailedError,
  isStoredIntentError,
  memoryStorageAdapter,
  type StoredIntent,
} from 'answer-once';
import { useSend } from 'answer-once/react';
import { afterEach, describe, expect, it } from 'vitest';
import { scriptedClient } from '../support/scripted-fetch.js';
import { errorMarker, generationAnswer, positionedEvents, rerunAnswer } from '../support/sse-response.js';
import { StreamedChat } from '../support/streamed-chat.js';

afterEach(() => cleanup());

function Chat({ client, resume = false }: { client: AnswerOnceClient; resume?: boolean }) {
  const chat = useSend<string>(client, 'chat', { stream: true, resume });
  const failedBecause = isIntentFailedError(chat.error)
    ? 'intent-failed'
    : isStoredIntentError(chat.error)
      ? 'stored-intent'
      : '';
  return <StreamedChat chat={chat} outputs={{ 'failed-because': failedBecause }} />;
}

/** Renders the chat, clicks send and waits for useSend's `status` to be `status`. */
async function sentUntil(client: AnswerOnceClient, status: string): Promise<void> {
  render(<Chat client={client} />);
  fireEvent.click(screen.getByText('send'));
  await waitFor(() => expect(screen.getByTestId('state').textContent).toBe(status));
}

describe('useSend({ stream: true }) and the client’s bounds', () => {
  it('a model that breaks mid-answer on every run: failed with IntentFailedError after 1 + retry.limit requests', async () => {
    const { server, client } = scriptedClient(
      (request, n) => rerunAnswer(request, n, { base: 7000, events: [`a${n}`], tail: [errorMarker()] }),
      { retry: { limit: 2, delay: 0 } },
    );
    await sentUntil(client, 'failed');
    expect(screen.getByTestId('failed-because').textContent).toBe('intent-failed');
    expect(server.seen).toHaveLength(3);
  });

  it('resume: a stored intent naming another origin is refused — failed with StoredIntentError, nothing sent, removed', async () => {
    const storage = memoryStorageAdapter();
    const foreign = {
      v: 1,
      requestId: '01JUSESENDBOUNDS0000000001',
      input: 'chat',
      url: 'https://collector.example/steal',
      method: 'POST',
      headers: [['content-type', 'application/json']],
      body: '{"content":"hi"}',
      createdAt: 1,
    } as const;
    await storage.save(foreign as unknown as StoredIntent);
    const { server, client } = scriptedClient(() => Response.json({ ok: true }), { storage });
    render(<Chat client={client} resume />);
    await waitFor(() => expect(screen.getByTestId('state').textContent).toBe('failed'));
    expect(screen.getByTestId('failed-because').textContent).toBe('stored-intent');
    expect(server.seen).toEqual([]);
    expect(await storage.list()).toEqual([]);
  });
});

describe('useSend({ stream: true }) and what a stream may say', () => {
  it('shows a body event named answer-once.error (with a position id) as body: the answer read on, one request', async () => {
    const events = positionedEvents(41, ['one', { event: 'answer-once.error', data: 'told by the model' }, 'two']);
    const { server, client } = scriptedClient(() => generationAnswer(41, events));
    await sentUntil(client, 'answered');
    expect(screen.getByTestId('text').textContent).toBe('onetwo');
    expect(server.seen).toHaveLength(1);
  });

  it('shows no word twice when a resume is answered from the start of the same generation (Last-Event-ID dropped)', async () => {
    const events = positionedEvents(41, ['one', 'two', 'three']);
    const { server, client } = scriptedClient((_request, n) =>
      n === 1 ? generationAnswer(41, [events[0]!, events[1]!.slice(0, 5)], 'cut') : generationAnswer(41, events),
    );
    await sentUntil(client, 'answered');
    expect(screen.getByTestId('text').textContent).toBe('onetwothree');
    expect(server.seen).toHaveLength(2);
  });
});
