/**
 * useSend({ stream: true }) as a chat UI without the AI SDK uses it: the answer's text
 * grows while `streaming`, and after a reload `resume: true` shows the pending answer
 * from the start of the server's log, then live — one model call. The reference handler
 * is called in-process (the client's `fetch` is the handler).
 */

import { act, cleanup, render, screen, waitFor } from '@testing-library/react';
import { type AnswerOnceClient, createClient, memoryStorageAdapter, SendController, streaming } from 'answer-once';
import { useSend } from 'answer-once/react';
import { createIdempotencyHandler } from 'answer-once/server';
import { StrictMode } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamedChat } from '../support/streamed-chat.js';
import { tokenResponse } from '../support/token-stream.js';

afterEach(() => cleanup());

const TOKENS = Array.from({ length: 15 }, (_, i) => `t${i} `);
const FULL = TOKENS.join('');

function chatServer() {
  const stats = { modelCalls: 0 };
  const handle = createIdempotencyHandler({
    scope: () => ({ user: 'u' }),
    handler: async (request, { signal }) => {
      stats.modelCalls += 1;
      await request.text();
      return tokenResponse(TOKENS, { delayMs: 15, signal });
    },
  });
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => handle(new Request(input, init));
  return { stats, fetch: fetch as typeof globalThis.fetch };
}

function Chat({ client, seen }: { client: AnswerOnceClient; seen: string[] }) {
  const chat = useSend<string>(client, 'chat', { stream: true, resume: true });
  if (chat.status === 'streaming' && seen.at(-1) !== chat.text) seen.push(chat.text ?? '');
  return (
    <div>
      <output data-testid="state">{chat.status}</output>
      <output data-testid="text">{chat.text}</output>
    </div>
  );
}

describe('useSend({ stream: true })', () => {
  it('after a reload resumes the pending intent as a stream: the text from the log, then live, one model call', async () => {
    const server = chatServer();
    const storage = memoryStorageAdapter();
    const gone = new AbortController();
    const page1 = new SendController<string>(
      createClient({ streaming, baseUrl: 'http://127.0.0.1:9/', fetch: server.fetch, storage, signal: gone.signal }),
      'chat',
      { stream: true },
    );
    const sent = page1.send({ json: { content: 'hi' } });
    await waitFor(() => expect(page1.getSnapshot().status).toBe('streaming'));
    const kept = memoryStorageAdapter();
    for (const intent of await storage.list()) await kept.save(intent);
    gone.abort();
    await sent;
    const seen: string[] = [];
    const client = createClient({ streaming, baseUrl: 'http://127.0.0.1:9/', fetch: server.fetch, storage: kept });
    await act(async () => {
      render(
        <StrictMode>
          <Chat client={client} seen={seen} />
        </StrictMode>,
      );
    });
    await waitFor(() => expect(screen.getByTestId('state').textContent).toBe('answered'), { timeout: 5_000 });
    expect(screen.getByTestId('text').textContent).toBe(FULL);
    expect(seen[0]).toBe(TOKENS[0]);
    expect(seen.length).toBeGreaterThan(3);
    expect(server.stats.modelCalls).toBe(1);
  });

  it('stop() stops the generation; after a reload resume shows the stopped partial answer, with no second model call', async () => {
    const server = chatServer();
    const storage = memoryStorageAdapter();
    const page1 = createClient({ streaming, baseUrl: 'http://127.0.0.1:9/', fetch: server.fetch, storage });
    let stop: (() => Promise<unknown>) | undefined;
    function Stoppable() {
      const chat = useSend<string>(page1, 'chat', { stream: true, resume: true, stopGuardMs: 0 });
      stop = chat.stop;
      return <StreamedChat chat={chat} outputs={{ stopped: String(chat.stopped) }} />;
    }
    const first = render(
      <StrictMode>
        <Stoppable />
      </StrictMode>,
    );
    await act(async () => screen.getByText('send').click());
    await waitFor(() => expect(screen.getByTestId('text').textContent?.length).toBeGreaterThan(6));
    const shown = screen.getByTestId('text').textContent;
    await act(async () => void (await stop!()));
    await waitFor(() => expect(screen.getByTestId('state').textContent).toBe('answered'), { timeout: 5_000 });
    expect(screen.getByTestId('stopped').textContent).toBe('true');
    const partial = screen.getByTestId('text').textContent ?? '';
    expect(partial).toBe(shown); // exactly what was on screen at the stop
    expect(FULL.startsWith(partial) && partial.length > 0 && partial !== FULL).toBe(true);
    first.unmount();

    // The reload: a new client over the same storage, the hook mounted with resume.
    const client = createClient({ streaming, baseUrl: 'http://127.0.0.1:9/', fetch: server.fetch, storage });
    await act(async () => {
      render(
        <StrictMode>
          <Chat client={client} seen={[]} />
        </StrictMode>,
      );
    });
    await waitFor(() => expect(screen.getByTestId('state').textContent).toBe('answered'), { timeout: 5_000 });
    expect(screen.getByTestId('text').textContent).toBe(partial);
    expect(server.stats.modelCalls).toBe(1);
  });
});
