/**
 * answerOnceTransport's stop guard: a stop within `stopGuardMs` (default 500 ms) of the
 * send — a double-click's second click on a Stop that took Send's place — stops nothing:
 * `guardStop(stop)` does not call useChat's stop, and an aborted stream does not stop the
 * generation on the server. Real `ai`, the reference handler on 127.0.0.1.
 */
import type { UIMessage, UIMessageChunk } from 'ai';
import { readUIMessageStream } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { startAiChatServer, WORDS } from '../support/ai-chat-server.js';

let server: Awaited<ReturnType<typeof startAiChatServer>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const user: UIMessage = { id: 'msg-user-00000001', role: 'user', parts: [{ type: 'text', text: 'hi' }] };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function textOf(stream: ReadableStream<UIMessageChunk>): Promise<string> {
  let message: UIMessage | undefined;
  for await (const next of readUIMessageStream({ stream })) message = next;
  return (message?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('');
}

const send = (transport: ReturnType<typeof answerOnceTransport>, abortSignal?: AbortSignal) =>
  transport.sendMessages({
    trigger: 'submit-message',
    chatId: 'chat-1',
    messageId: undefined,
    messages: [user],
    abortSignal,
  });

describe('answerOnceTransport: a stop right after the send', () => {
  it.each([100, 200])(
    'does not call useChat’s stop %d ms after the send (guardStop), and stops after the guard',
    async (delay) => {
      server = await startAiChatServer({ delayMs: 20 });
      const transport = answerOnceTransport({ client: createClient(), api: server.api });
      let stops = 0;
      const stop = transport.guardStop(async () => void (stops += 1));
      const answer = send(transport);
      await sleep(delay);
      await stop();
      expect(stops).toBe(0);
      await sleep(500 - delay);
      await stop();
      expect(stops).toBe(1);
      await (await answer).cancel();
    },
  );

  it.each([100, 200])(
    'does not stop the generation when the stream is aborted %d ms after the send: one model call, the whole answer kept',
    async (delay) => {
      server = await startAiChatServer({ delayMs: 15 });
      const transport = answerOnceTransport({ client: createClient(), api: server.api });
      const controller = new AbortController();
      const started = Date.now();
      await send(transport, controller.signal);
      await sleep(Math.max(0, delay - (Date.now() - started)));
      controller.abort();
      await sleep(300);
      expect(server.requests.filter((request) => request.method === 'DELETE')).toHaveLength(0);
      const later = answerOnceTransport({ client: createClient(), api: server.api });
      expect(await textOf(await send(later))).toBe(WORDS.join(''));
      expect(server.calls()).toBe(1);
    },
  );

  it('takes the guard from stopGuardMs (0 turns it off), and refuses one that is not a timer, naming it', async () => {
    server = await startAiChatServer({ delayMs: 20 });
    const transport = answerOnceTransport({ client: createClient(), api: server.api, stopGuardMs: 0 });
    let stops = 0;
    const answer = send(transport);
    await transport.guardStop(async () => void (stops += 1))();
    expect(stops).toBe(1);
    await (await answer).cancel();
    expect(() => answerOnceTransport({ client: createClient(), stopGuardMs: -5 })).toThrow(
      /answer-once\/ai: `stopGuardMs` must be an integer from 0/,
    );
  });
});
