/**
 * The example of docs/testing.md: a (framework-free)
 * chat UI on the real client, tested against the reference server running in msw,
 * while the network loses responses and workers crash.
 */

import { type AnswerOnceClient, createClient } from 'answer-once';
import { createIdempotentMock } from 'answer-once/msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sleep } from '../support/sleep.js';

/** The app under test: a transcript, and a send button that asks the model. */
function chatUi(client: AnswerOnceClient) {
  const transcript: string[] = [];
  return {
    transcript,
    async send(question: string): Promise<void> {
      transcript.push(`you: ${question}`);
      const { data, replayed } = await client.send<{ answer: string }>('api/chat', {
        json: { question },
        intentKey: question, // a double click joins the click in flight
      });
      transcript.push(`bot: ${data.answer}${replayed ? ' (already answered)' : ''}`);
    },
  };
}

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function setup() {
  let modelCalls = 0;
  const mock = createIdempotentMock({
    url: 'https://chat.test/api/chat',
    leaseMs: 200,
    handler: async (request) => {
      modelCalls += 1;
      const { question } = (await request.json()) as { question: string };
      await sleep(30); // the model thinks
      return Response.json({ answer: `You asked "${question}".` });
    },
  });
  server.use(...mock.handlers);
  const client = createClient({
    baseUrl: 'https://chat.test/',
    retry: { limit: 5, delay: 10 },
    pollWait: 1,
    pollInterval: 20,
  });
  return { ui: chatUi(client), mock, modelCalls: () => modelCalls };
}

describe('a chat UI tested with answer-once/msw', () => {
  it('shows one answer and calls the model once when the first response is lost', async () => {
    const { ui, mock, modelCalls } = setup();
    mock.inject({ type: 'lose-response' });
    await ui.send('Is the sky blue?');
    expect(ui.transcript).toEqual(['you: Is the sky blue?', 'bot: You asked "Is the sky blue?". (already answered)']);
    expect(modelCalls()).toBe(1);
  });

  it('joins a double click into one request and one answer', async () => {
    const { ui, modelCalls } = setup();
    await Promise.all([ui.send('Hello?'), ui.send('Hello?')]);
    expect(ui.transcript.filter((line) => line.startsWith('bot:'))).toEqual([
      'bot: You asked "Hello?".',
      'bot: You asked "Hello?".',
    ]);
    expect(modelCalls()).toBe(1);
  });

  it('still answers when the gateway fails first and the worker then crashes mid-answer', async () => {
    const { ui, mock, modelCalls } = setup();
    mock.inject({ type: 'fail-before', status: 503 }, { type: 'crash', afterMs: 10 });
    await ui.send('Are you there?');
    expect(ui.transcript).toEqual(['you: Are you there?', 'bot: You asked "Are you there?".']);
    expect(modelCalls()).toBe(2); // the crashed call, and the one that took over
    expect(mock.stats.faults).toMatchObject({ 'fail-before': 1, crash: 1 });
  });
});
