/**
 * useSend's Stop tells the truth: behind a status route that does not answer `DELETE`
 * (a Next.js route file exporting `POST` and `GET` only), the stop is not confirmed —
 * the state's `stopError` is a `StopNotConfirmedError` the page shows, and the answer,
 * still being written and paid for, keeps showing to its end instead of looking stopped.
 * With `DELETE` answered: no error, the model stopped, the partial answer kept.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { type AnswerOnceClient, createClient, isStopNotConfirmedError, streaming } from 'answer-once';
import { useSend } from 'answer-once/react';
import { afterEach, describe, expect, it } from 'vitest';
import { tokenStopRoutes } from '../support/stop-routes.js';

afterEach(() => cleanup());

const TOKENS = Array.from({ length: 30 }, (_, i) => `t${i} `);
const FULL = TOKENS.join('');

const app = (withDelete: boolean) => tokenStopRoutes(TOKENS, 20, withDelete);

function Chat({ client }: { client: AnswerOnceClient }) {
  const chat = useSend<string>(client, 'chat', { stream: true, stopGuardMs: 0 });
  return (
    <div>
      <button type="button" onClick={() => void chat.send({ json: { q: 'hi' } })}>
        send
      </button>
      <button type="button" onClick={() => void chat.stop()}>
        stop
      </button>
      <output data-testid="status">{chat.status}</output>
      <output data-testid="text">{chat.text}</output>
      <output data-testid="stopped">{String(chat.stopped)}</output>
      <output data-testid="stop-error">
        {isStopNotConfirmedError(chat.stopError) ? `${chat.stopError.status}: ${chat.stopError.message}` : ''}
      </output>
    </div>
  );
}

const shown = (id: string) => screen.getByTestId(id).textContent ?? '';

async function sendThenStop(server: ReturnType<typeof app>, whileStreaming?: () => Promise<void>) {
  render(<Chat client={createClient({ streaming, baseUrl: 'http://127.0.0.1:9/', fetch: server.fetch })} />);
  fireEvent.click(screen.getByText('send'));
  await waitFor(() => expect(shown('text').split(' ').length).toBeGreaterThan(3), { timeout: 5_000 });
  fireEvent.click(screen.getByText('stop'));
  await whileStreaming?.();
  await waitFor(() => expect(shown('status')).toBe('answered'), { timeout: 5_000 });
}

describe('useSend stop()', () => {
  it('behind a route without DELETE, shows the StopNotConfirmedError and the whole answer the model went on writing', async () => {
    const server = app(false);
    await sendThenStop(server, async () => {
      // Said at once, while the answer streams on — and visibly grows.
      await waitFor(() => expect(shown('stop-error')).not.toBe(''));
      expect(shown('status')).toBe('streaming');
      const atError = shown('text');
      await waitFor(() => expect(shown('text').length).toBeGreaterThan(atError.length));
    });

    expect(shown('stop-error')).toMatch(/^405: .*does not answer DELETE/);
    expect(shown('text')).toBe(FULL);
    expect(shown('stopped')).toBe('false');
    expect(server.stats.stopsSeen).toBe(0);
    expect(server.stats.written()).toBe(TOKENS.length);
    expect(server.stats.modelCalls).toBe(1);
  });

  it('behind a route that answers DELETE, stops the model with no error: the partial answer, stopped', async () => {
    const server = app(true);
    await sendThenStop(server);

    expect(shown('stop-error')).toBe('');
    expect(shown('stopped')).toBe('true');
    expect(FULL.startsWith(shown('text'))).toBe(true);
    expect(shown('text').length).toBeLessThan(FULL.length);
    expect(server.stats.stopsSeen).toBe(1);
    expect(server.stats.written()).toBeLessThan(TOKENS.length);
    expect(server.stats.modelCalls).toBe(1);
  });
});
