/**
 * useChat's Stop over `answerOnceTransport` tells the truth. useChat's `stop()` aborts its
 * stream and shows the answer stopped whatever the server did; behind a status route that
 * does not answer `DELETE` (a Next.js route file exporting `POST` and `GET` only) the
 * transport's `onStopError` listeners get the `StopNotConfirmedError`, so the page can say
 * the model is still writing — and it is, to the end. With `DELETE` answered: no error,
 * the model stopped.
 */
import { useChat } from '@ai-sdk/react';
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { createClient, isStopNotConfirmedError } from 'answer-once';
import { answerOnceTransport, type StopErrorContext } from 'answer-once/ai';
import { useEffect, useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { aiChatWork } from '../support/ai-chat-server.js';
import { stopRoutes } from '../support/stop-routes.js';
import { TestPage } from '../support/test-page.js';

afterEach(() => cleanup());

const WORDS = Array.from({ length: 30 }, (_, i) => `word${i} `);

const app = (withDelete: boolean) =>
  stopRoutes(aiChatWork({ words: WORDS, delayMs: 20 }), { withDelete, unit: '"type":"text-delta"' });

function Chat({ server }: { server: ReturnType<typeof app> }) {
  const [transport] = useState(() =>
    answerOnceTransport({
      client: createClient({ fetch: server.fetch, baseUrl: 'http://127.0.0.1:9/' }),
      api: 'api/chat',
      stopGuardMs: 0,
    }),
  );
  const [stopError, setStopError] = useState<{ error: Error; stop: StopErrorContext }>();
  useEffect(() => transport.onStopError((error, stop) => setStopError({ error, stop })), [transport]);
  const { messages, sendMessage, stop, status } = useChat({ id: 'chat-stop', transport });
  const answer = messages.filter((message) => message.role === 'assistant').at(-1);
  const error = stopError?.error;
  return (
    <TestPage
      buttons={{ ask: () => sendMessage({ text: 'hi' }), stop: () => stop() }}
      outputs={{
        status,
        answer: answer?.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''),
        'stop-error': isStopNotConfirmedError(error) ? `${stopError?.stop.reason} ${error.status}: ${error.message}` : '',
      }}
    />
  );
}

const shown = (id: string) => screen.getByTestId(id).textContent ?? '';

async function askThenStop(server: ReturnType<typeof app>) {
  render(<Chat server={server} />);
  fireEvent.click(screen.getByText('ask'));
  await waitFor(() => expect(shown('answer').split(' ').length).toBeGreaterThan(3), { timeout: 5_000 });
  fireEvent.click(screen.getByText('stop'));
  await waitFor(() => expect(shown('status')).toBe('ready'));
}

/** Waits until the server's run ended, the way it ends (a stop, or its last word). */
const runEnded = (server: ReturnType<typeof app>) =>
  waitFor(() => expect(server.stats.stopsSeen + Number(server.stats.written() === WORDS.length)).toBe(1), {
    timeout: 5_000,
  });

describe('useChat stop() over answerOnceTransport', () => {
  it('behind a route without DELETE, hands the page a StopNotConfirmedError (405) while the model writes on to its end', async () => {
    const server = app(false);
    await askThenStop(server);

    await waitFor(() => expect(shown('stop-error')).toMatch(/^stop 405: .*does not answer DELETE/));
    await runEnded(server);
    expect(server.stats.stopsSeen).toBe(0);
    expect(server.stats.written()).toBe(WORDS.length);
    expect(server.stats.deletes).toBe(1);
    expect(server.stats.modelCalls).toBe(1);
  });

  it('behind a route that answers DELETE, stops the model on the server with no error', async () => {
    const server = app(true);
    await askThenStop(server);

    await runEnded(server);
    expect(server.stats.stopsSeen).toBe(1);
    expect(server.stats.written()).toBeLessThan(WORDS.length);
    expect(shown('stop-error')).toBe('');
    expect(server.stats.modelCalls).toBe(1);
  });
});

describe('answerOnceTransport.onStopError', () => {
  it('reports an unconfirmed stop on console.error while no listener listens, and stops telling a listener that unsubscribed', async () => {
    const transport = answerOnceTransport({
      client: createClient({ fetch: app(false).fetch, baseUrl: 'http://127.0.0.1:9/' }),
      api: 'api/chat',
      stopGuardMs: 0,
    });
    const heard: string[] = [];
    const unsubscribe = transport.onStopError((error, stop) => heard.push(`${stop.reason} ${error.name}`));
    unsubscribe();
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const abort = new AbortController();
      const stream = await transport.sendMessages({
        trigger: 'submit-message',
        chatId: 'chat-unheard',
        messageId: undefined,
        messages: [{ id: 'msg-user-00000001', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
        abortSignal: abort.signal,
      });
      await stream.getReader().read();
      abort.abort();
      await waitFor(() => expect(logged).toHaveBeenCalledTimes(1));
      expect(isStopNotConfirmedError(logged.mock.calls[0]![0])).toBe(true);
      expect(heard).toEqual([]);
    } finally {
      logged.mockRestore();
    }
    expect(() => transport.onStopError('nope' as never)).toThrow(/listener/);
  });
});
