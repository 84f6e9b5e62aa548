/**
 * useSend when the server will not run the intent again (409 `intent-exhausted`): the UI
 * shows a final failure it can name, and its "try again" is a new intent with a new ID
 * (resending the old one could never be answered).
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { type AnswerOnceClient, isIntentExhaustedError } from 'answer-once';
import { useSend } from 'answer-once/react';
import { afterEach, describe, expect, it } from 'vitest';
import { BASE, scriptedClient } from '../support/scripted-fetch.js';

afterEach(() => cleanup());

const exhausted = () =>
  Response.json(
    {
      type: 'https://answer-once.dev/problems/intent-exhausted',
      title: 'Intent exhausted',
      status: 409,
      code: 'intent-exhausted',
    },
    { status: 409, headers: { 'content-type': 'application/problem+json' } },
  );

function Chat({ client }: { client: AnswerOnceClient }) {
  const chat = useSend<{ answer: string }>(client, `${BASE}chat`);
  return (
    <div>
      <button type="button" onClick={() => void chat.send({ method: 'POST', json: { content: 'hi' } })}>
        send
      </button>
      <output data-testid="state">{chat.status}</output>
      <output data-testid="final">{String(isIntentExhaustedError(chat.error))}</output>
      {chat.data && <p data-testid="answer">{chat.data.answer}</p>}
    </div>
  );
}

describe('useSend and intent-exhausted', () => {
  it('shows a final IntentExhaustedError after one request; "try again" sends a new intent that is answered', async () => {
    const { server, client } = scriptedClient(
      (_request, n) => (n === 1 ? exhausted() : Response.json({ answer: 'hello' })),
      {
        retry: { limit: 3, delay: 0 },
      },
    );
    render(<Chat client={client} />);
    fireEvent.click(screen.getByText('send'));
    await waitFor(() => expect(screen.getByTestId('state').textContent).toBe('failed'));
    expect(screen.getByTestId('final').textContent).toBe('true');
    expect(server.seen).toHaveLength(1);
    fireEvent.click(screen.getByText('send'));
    await waitFor(() => expect(screen.getByTestId('answer').textContent).toBe('hello'));
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1]!.id).not.toBe(server.seen[0]!.id);
  });
});
