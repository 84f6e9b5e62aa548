/**
 * useSend as a chat UI uses it, against the reference server (inside msw) and the real
 * client: the states a user watches, how many model calls were paid, which answer shows.
 */

import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { type AnswerOnceClient, type ClientOptions, createClient, memoryStorageAdapter } from 'answer-once';
import { useSend } from 'answer-once/react';
import { StrictMode } from 'react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { API, type ChatAnswer, type ChatQuestion, type ChatServer, createChatServer } from '../support/chat-server.js';

const MODEL_MS = 40;
let server: ChatServer;

beforeEach(() => {
  server = createChatServer({ modelMs: MODEL_MS });
});

afterEach(() => {
  cleanup();
});

function chatClient(options: ClientOptions = {}): AnswerOnceClient {
  // A fixed jitter share keeps retry delays (and so the visible states) deterministic.
  return createClient({
    baseUrl: API,
    fetch: server.fetch,
    retry: { limit: 3, delay: 40, random: () => 0.99 },
    ...options,
  });
}

/** A minimal chat UI; `seen` collects every state it rendered, in order. */
function Chat({ client, seen, resume = false }: { client: AnswerOnceClient; seen: string[]; resume?: boolean }) {
  const chat = useSend<ChatAnswer, ChatQuestion>(client, 'chat', { resume });
  if (seen.at(-1) !== chat.status) seen.push(chat.status);
  return (
    <div>
      <button type="button" onClick={() => void chat.send({ json: { content: 'hello' } })}>
        send
      </button>
      <button type="button" onClick={chat.reset}>
        new question
      </button>
      <output data-testid="state">{chat.status}</output>
      <output data-testid="request-id">{chat.requestId}</output>
      {chat.status === 'retrying' && (
        <span>
          retrying ({chat.retry.number}/{chat.retryLimit})…
        </span>
      )}
      {chat.status === 'waiting' && <span>still generating…</span>}
      {chat.data && <p data-testid="answer">{chat.data.answer}</p>}
      {chat.replayed && <span data-testid="replayed-badge">already answered</span>}
      {chat.error && <p role="alert">{chat.error.message}</p>}
    </div>
  );
}

async function settled(): Promise<string> {
  await waitFor(() => expect(screen.getByTestId('state').textContent).toMatch(/answered|failed/), {
    timeout: 5000,
  });
  return screen.getByTestId('state').textContent!;
}

describe('useSend', () => {
  it('goes idle → sending → answered and shows the one answer the model gave', async () => {
    const seen: string[] = [];
    render(<Chat client={chatClient()} seen={seen} />);
    fireEvent.click(screen.getByText('send'));

    expect(await settled()).toBe('answered');
    expect(seen).toEqual(['idle', 'sending', 'answered']);
    expect(screen.getByTestId('answer').textContent).toBe('answer #1 to hello');
    expect(screen.queryByTestId('replayed-badge')).toBeNull();
    expect(server.mock.stats.runs).toBe(1);
  });

  it('shows "retrying (1/3)" after a 503 before the work, then the answer from one model call', async () => {
    server.mock.inject({ type: 'fail-before', status: 503 });
    const seen: string[] = [];
    render(<Chat client={chatClient()} seen={seen} />);
    fireEvent.click(screen.getByText('send'));

    expect(await screen.findByText('retrying (1/3)…')).toBeTruthy();
    expect(await settled()).toBe('answered');
    expect(seen).toEqual(['idle', 'sending', 'retrying', 'sending', 'answered']);
    expect(server.mock.stats.runs).toBe(1);
    expect(new Set(server.sentIds).size).toBe(1);
  });

  it('shows "still generating" while the server answers 202, then the stored answer, replayed', async () => {
    // The first attempt times out while the model works on; the retry learns it is running.
    const client = chatClient({ timeout: MODEL_MS * 2, pollWait: 0, pollInterval: 30 });
    const release = server.hold();
    const seen: string[] = [];
    render(<Chat client={client} seen={seen} />);
    fireEvent.click(screen.getByText('send'));

    expect(await screen.findByText('still generating…', {}, { timeout: 3000 })).toBeTruthy();
    release();
    expect(await settled()).toBe('answered');
    expect(seen).toEqual(['idle', 'sending', 'retrying', 'sending', 'waiting', 'answered']);
    expect(screen.getByTestId('answer').textContent).toBe('answer #1 to hello');
    expect(screen.getByTestId('replayed-badge')).toBeTruthy();
    expect(server.mock.stats.runs).toBe(1);
  });

  it('shows the "already answered" badge when the response was lost and the retry got the stored answer', async () => {
    server.mock.inject({ type: 'lose-response' });
    const seen: string[] = [];
    render(<Chat client={chatClient()} seen={seen} />);
    fireEvent.click(screen.getByText('send'));

    expect(await settled()).toBe('answered');
    expect(seen).toEqual(['idle', 'sending', 'retrying', 'sending', 'answered']);
    expect(screen.getByTestId('answer').textContent).toBe('answer #1 to hello');
    expect(screen.getByTestId('replayed-badge')).toBeTruthy();
    expect(server.mock.stats.runs).toBe(1);
  });

  it('ends failed when retries run out, and send() again resends the same requestId', async () => {
    const outage = Array.from({ length: 4 }, () => ({ type: 'fail-before', status: 503 }) as const);
    server.mock.inject(...outage);
    const seen: string[] = [];
    render(<Chat client={chatClient()} seen={seen} />);
    fireEvent.click(screen.getByText('send'));

    expect(await settled()).toBe('failed');
    expect(seen).toEqual(['idle', 'sending', 'retrying', 'sending', 'retrying', 'sending', 'retrying', 'sending', 'failed']);
    expect(screen.getByRole('alert').textContent).not.toBe('');
    expect(server.mock.stats.runs).toBe(0);
    const failedId = screen.getByTestId('request-id').textContent;

    fireEvent.click(screen.getByText('send'));
    expect(await settled()).toBe('answered');
    expect(screen.getByTestId('request-id').textContent).toBe(failedId);
    expect(new Set(server.sentIds)).toEqual(new Set([failedId]));
    expect(server.mock.stats.runs).toBe(1);
  });

  it('makes one request for a double send() while in flight, and both calls get the answer', async () => {
    let chat!: ReturnType<typeof useSend<ChatAnswer, ChatQuestion>>;
    function Probe({ client }: { client: AnswerOnceClient }) {
      chat = useSend<ChatAnswer, ChatQuestion>(client, 'chat');
      return null;
    }
    render(<Probe client={chatClient()} />);

    let first!: Promise<unknown>;
    let second!: Promise<unknown>;
    act(() => {
      first = chat.send({ json: { content: 'hello' } });
      second = chat.send({ json: { content: 'hello again' } });
    });
    expect(second).toBe(first);
    const [a, b] = await act(() => Promise.all([first, second]));

    expect(a).toMatchObject({ status: 'answered', data: { answer: 'answer #1 to hello' } });
    expect(b).toBe(a);
    expect(server.sentIds).toHaveLength(1);
    expect(server.mock.stats.runs).toBe(1);
  });

  it('under StrictMode, a double click sends one request and shows one answer', async () => {
    const seen: string[] = [];
    render(
      <StrictMode>
        <Chat client={chatClient()} seen={seen} />
      </StrictMode>,
    );
    fireEvent.click(screen.getByText('send'));
    fireEvent.click(screen.getByText('send'));

    expect(await settled()).toBe('answered');
    expect(seen).toEqual(['idle', 'sending', 'answered']);
    expect(server.sentIds).toHaveLength(1);
    expect(server.mock.stats.runs).toBe(1);
  });

  it('starts a new intent after reset(): the next send has a new requestId and a new answer', async () => {
    render(<Chat client={chatClient()} seen={[]} />);
    fireEvent.click(screen.getByText('send'));
    await settled();
    const firstId = screen.getByTestId('request-id').textContent;

    fireEvent.click(screen.getByText('new question'));
    expect(screen.getByTestId('state').textContent).toBe('idle');
    expect(screen.queryByTestId('answer')).toBeNull();
    fireEvent.click(screen.getByText('send'));
    await settled();

    expect(screen.getByTestId('request-id').textContent).not.toBe(firstId);
    expect(screen.getByTestId('answer').textContent).toBe('answer #2 to hello');
    expect(server.mock.stats.runs).toBe(2);
  });

  it('with resume: true after a reload, finishes the pending intent with its original ID, once, under StrictMode', async () => {
    const release = server.hold();
    // The page that "reloads": its storage is shared, but it dies before it can clean up.
    const storage = memoryStorageAdapter();
    const dying = new AbortController();
    const before = chatClient({ storage: { ...storage, remove: () => undefined } });
    const lost = before.send('chat', { json: { content: 'hello' }, signal: dying.signal });
    await waitFor(() => expect(server.mock.stats.runs).toBe(1));
    dying.abort(); // the reload
    await lost.catch(() => undefined);
    const [pending] = await storage.list();

    const seen: string[] = [];
    render(
      <StrictMode>
        <Chat client={chatClient({ storage, pollWait: 1, timeout: 5000 })} seen={seen} resume />
      </StrictMode>,
    );
    expect(await screen.findByText('still generating…', {}, { timeout: 3000 })).toBeTruthy();
    release();

    expect(await settled()).toBe('answered');
    expect(screen.getByTestId('request-id').textContent).toBe(pending!.requestId);
    expect(screen.getByTestId('answer').textContent).toBe('answer #1 to hello');
    expect(screen.getByTestId('replayed-badge')).toBeTruthy();
    expect(server.sentIds).toEqual([pending!.requestId, pending!.requestId]);
    expect(server.mock.stats.runs).toBe(1);
    expect(seen).toEqual(['idle', 'sending', 'waiting', 'answered']);
  });

  it('with resume: true after a reload, finishes an intent sent with searchParams: the stored answer, replayed, one model call', async () => {
    const storage = memoryStorageAdapter();
    server.mock.inject({ type: 'lose-response' });
    const before = chatClient({ storage: { ...storage, remove: () => undefined }, retry: 0 });
    await before.send('chat', { json: { content: 'hello' }, searchParams: { thread: 't1' } }).catch(() => undefined);
    const [pending] = await storage.list();
    expect(pending!.url).toBe(`${API}chat?thread=t1`);
    expect(server.mock.stats.runs).toBe(1);

    const seen: string[] = [];
    render(<Chat client={chatClient({ storage })} seen={seen} resume />);
    expect(await settled()).toBe('answered');
    expect(screen.getByTestId('request-id').textContent).toBe(pending!.requestId);
    expect(screen.getByTestId('answer').textContent).toBe('answer #1 to hello');
    expect(screen.getByTestId('replayed-badge')).toBeTruthy();
    expect(server.mock.stats.runs).toBe(1);
  });

  it('ends failed, never stuck in sending, when the client throws instead of rejecting', async () => {
    const throwing = {
      send: () => {
        throw new TypeError('bad send options');
      },
    } as unknown as AnswerOnceClient;
    let chat!: ReturnType<typeof useSend<ChatAnswer, ChatQuestion>>;
    function Probe() {
      chat = useSend<ChatAnswer, ChatQuestion>(throwing, 'chat');
      return null;
    }
    render(<Probe />);
    const outcome = await act(() => chat.send({ json: { content: 'hello' } }));
    expect(outcome).toMatchObject({ status: 'failed', error: { message: 'bad send options' } });
    expect(chat.status).toBe('failed');
  });

  it('rejects a non-boolean resume option with a TypeError naming it', () => {
    const client = chatClient();
    function Bad() {
      useSend(client, 'chat', { resume: 'yes' as unknown as boolean });
      return null;
    }
    expect(() => render(<Bad />)).toThrow(/`options.resume`/);
  });
});
