/**
 * openai-node and the Anthropic SDK as clients nobody here wrote, each handed
 * `client.fetch` (and `maxRetries: 0`: each SDK retry would be a new intent), streaming
 * from a local API-compatible SSE endpoint behind the reference `createIdempotencyHandler`,
 * with the answer's socket destroyed mid-stream by a front on 127.0.0.1.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createClient, streaming } from 'answer-once';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { loopbackRigs } from '../../support/loopback-rig.js';
import { sseResponse } from '../../support/sse-response.js';

const WORDS = Array.from({ length: 16 }, (_, i) => `w${i} `);
const sse = (data: unknown, event?: string) => `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;

/** What an OpenAI-compatible `/v1/chat/completions` streams. */
function openaiEvents(): string[] {
  const chunk = (delta: object, finish: string | null = null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1_764_581_234,
    model: 'mock-1',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  return [
    sse(chunk({ role: 'assistant', content: '' })),
    ...WORDS.map((content) => sse(chunk({ content }))),
    sse(chunk({}, 'stop')),
    'data: [DONE]\n\n',
  ];
}

/** What Anthropic's `/v1/messages` streams. */
function anthropicEvents(): string[] {
  const usage = { input_tokens: 3, output_tokens: 0 };
  return [
    sse(
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          content: [],
          model: 'mock-1',
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      },
      'message_start',
    ),
    sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start'),
    ...WORDS.map((text) =>
      sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta'),
    ),
    sse({ type: 'content_block_stop', index: 0 }, 'content_block_stop'),
    sse(
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 16 } },
      'message_delta',
    ),
    sse({ type: 'message_stop' }, 'message_stop'),
  ];
}

const loopback = loopbackRigs();

/** The API's endpoint: its stream of `events`, behind the reference handler; cut as `cuts` says. */
const rig = (events: () => string[], cuts: (number | undefined)[]) =>
  loopback(
    async (request) => {
      await request.text();
      return sseResponse(events());
    },
    { cuts },
  );

/**
 * The reconnect resumed the live log after the last whole event (§ 14.5), not from the
 * start. Usually in one request; on a loaded machine the reconnect can arrive before the
 * first batch reached the log and get a 202 first, so a poll or two more is allowed.
 */
function resumedOnce(requests: readonly { lastEventId?: string }[]): void {
  expect(requests.length, JSON.stringify(requests)).toBeGreaterThanOrEqual(2);
  expect(requests.length, JSON.stringify(requests)).toBeLessThanOrEqual(4);
  expect(requests.at(-1)?.lastEventId, JSON.stringify(requests)).toMatch(/^\d+\.\d+$/);
}

describe('openai-node with client.fetch', () => {
  it('streams a chat completion whose socket is cut mid-answer: the full text once, one model call', async () => {
    const server = await rig(openaiEvents, [6]);
    const client = createClient({ streaming });
    const openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'sk-test', fetch: client.fetch, maxRetries: 0 });
    const stream = await openai.chat.completions.create({
      model: 'mock-1',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(WORDS.join(''));
    expect(server.cuts()).toBe(1);
    resumedOnce(server.requests);
    expect(server.calls()).toBe(1);
  });
});

describe('the Anthropic SDK with client.fetch', () => {
  it('streams a message whose socket is cut mid-answer: the full text once, one model call', async () => {
    const server = await rig(anthropicEvents, [7]);
    const client = createClient({ streaming });
    const anthropic = new Anthropic({ baseURL: server.url, apiKey: 'sk-test', fetch: client.fetch, maxRetries: 0 });
    const stream = await anthropic.messages.create({
      model: 'mock-1',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const event of stream) {
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    }
    expect(text).toBe(WORDS.join(''));
    expect(server.cuts()).toBe(1);
    resumedOnce(server.requests);
    expect(server.calls()).toBe(1);
  });
});
