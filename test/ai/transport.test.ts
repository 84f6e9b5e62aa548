/**
 * answerOnceTransport with the real `ai` package: the transport's streams fed to the AI
 * SDK's own `readUIMessageStream`, against `streamText(…).toUIMessageStreamResponse()`
 * behind the reference handler, on 127.0.0.1.
 */
import type { UIMessage, UIMessageChunk } from 'ai';
import { createClient, isResponseError, memoryStorageAdapter, type StorageAdapter } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { describe, expect, it } from 'vitest';
import { WORDS } from '../support/ai-chat-server.js';
import { HI, messageOf, sendHi, useAiChatServer } from '../support/ai-transport.js';
import { sleep } from '../support/sleep.js';

const chat = useAiChatServer();

const FULL = WORDS.join('');

async function until(check: () => boolean | Promise<boolean>, ms = 5_000) {
  for (const deadline = Date.now() + ms; !(await check()) && Date.now() < deadline; ) await sleep(5);
}

/** What a reload keeps: sessionStorage's records, in a new page's client. */
async function reloaded(storage: StorageAdapter): Promise<StorageAdapter> {
  const next = memoryStorageAdapter();
  for (const intent of await storage.list()) await next.save(intent);
  return next;
}

/** A page's transport, its client on `storage` (the page's sessionStorage, or a shared localStorage). */
const pageOn = (storage: StorageAdapter, signal?: AbortSignal, stopGuardMs?: number) =>
  answerOnceTransport({ client: createClient({ storage, signal }), api: chat.server.api, stopGuardMs });

/** Reads the first `chunks` chunks of `stream`, and leaves the rest unread; the text they showed. */
async function readSome(stream: ReadableStream<UIMessageChunk>, chunks: number): Promise<string> {
  const reader = stream.getReader();
  let text = '';
  for (let i = 0; i < chunks; i++) {
    const { value } = await reader.read();
    if (value?.type === 'text-delta') text += value.delta;
  }
  return text;
}

/**
 * A page that sent the message and read `chunks` chunks of the answer, then was reloaded:
 * what its sessionStorage kept, and the reloaded page's transport on it.
 */
async function reloadedMidAnswer(chunks: number) {
  const storage = memoryStorageAdapter();
  const gone = new AbortController();
  await readSome(await sendHi(pageOn(storage, gone.signal)), chunks);
  const kept = await reloaded(storage);
  gone.abort(); // the page is gone: its connection with it
  return { kept, page2: pageOn(kept) };
}

/** useChat's stop(): aborts the stream, then waits for the server's DELETE and for the holder to honour it. */
async function stop(controller: AbortController): Promise<void> {
  controller.abort();
  await until(() => chat.server.requests.some((request) => request.method === 'DELETE'));
  await sleep(200); // the holder honours it within a flush window
}

describe('answerOnceTransport (answer-once/ai)', () => {
  it('makes a double send of one user message one intent: one request, one model call, the whole answer to both', async () => {
    const server = await chat.start();
    const transport = answerOnceTransport({ client: createClient(), api: server.api });
    const [a, b] = await Promise.all([sendHi(transport), sendHi(transport)]);
    const [first, second] = await Promise.all([messageOf(a), messageOf(b)]);
    expect(first.text).toBe(FULL);
    expect(second.text).toBe(FULL);
    expect(chat.posts()).toHaveLength(1);
    expect(server.calls()).toBe(1);
  });

  it('continues a stream cut mid-answer without a seam: one text part, every word once, one model call', async () => {
    const server = await chat.start({ cuts: [9] });
    const transport = answerOnceTransport({ client: createClient(), api: server.api });
    const { message, text } = await messageOf(await sendHi(transport));
    expect(text).toBe(FULL);
    expect(message?.parts.filter((part) => part.type === 'text')).toHaveLength(1);
    expect(server.cuts()).toBe(1);
    expect(server.calls()).toBe(1);
  });

  it('replaces the partial answer when the answer restarts on the server (its stream broke, the resend ran it again): one text part, the new answer once', async () => {
    const rerun = WORDS.map((word) => `again-${word}`);
    const server = await chat.start({ breakFirstAfter: 9, rerunWords: rerun });
    const restarts: number[] = [];
    const client = createClient({ onEvent: (event) => event.type === 'restart' && restarts.push(event.generation) });
    const transport = answerOnceTransport({ client, api: server.api });
    const { message, text } = await messageOf(await sendHi(transport));
    expect(restarts).toHaveLength(1); // the first run's words reached the reader, then the answer started again
    expect(text).toBe(rerun.join(''));
    expect(message?.parts.filter((part) => part.type === 'text')).toHaveLength(1);
    expect(message?.parts.filter((part) => part.type === 'step-start')).toHaveLength(1);
    expect(server.calls()).toBe(2); // the model's stream broke: the intent ran again, honestly
  });

  it('continues the answer without a restart when the resend’s run writes again what the broken one had sent: every word once', async () => {
    const server = await chat.start({ breakFirstAfter: 9 });
    const restarts: number[] = [];
    const client = createClient({ onEvent: (event) => event.type === 'restart' && restarts.push(event.generation) });
    const transport = answerOnceTransport({ client, api: server.api });
    const { message, text } = await messageOf(await sendHi(transport));
    expect(restarts).toHaveLength(0); // the new run reproduced the logged bytes: one answer, no seam
    expect(text).toBe(FULL);
    expect(message?.parts.filter((part) => part.type === 'text')).toHaveLength(1);
    expect(message?.parts.filter((part) => part.type === 'step-start')).toHaveLength(1);
    expect(server.calls()).toBe(2); // the model's stream broke: the intent ran again, honestly
  });

  it('reattaches after a reload from the pending intent in storage, from the start of the log, with no duplicated text', async () => {
    const server = await chat.start({ delayMs: 15 });
    const { kept, page2 } = await reloadedMidAnswer(4);
    const resumed = await page2.reconnectToStream({ chatId: 'chat-1' });
    expect(resumed).not.toBeNull();
    const { message, text } = await messageOf(resumed!);
    expect(text).toBe(FULL);
    expect(message?.parts.filter((part) => part.type === 'text')).toHaveLength(1);
    expect(server.calls()).toBe(1);
    await until(async () => (await kept.list()).length === 0);
    expect(await page2.reconnectToStream({ chatId: 'chat-1' })).toBeNull(); // settled: nothing to resume
  });

  it('collapses concurrent resumes of one intent (StrictMode, two mounts) into one request', async () => {
    const server = await chat.start({ delayMs: 10 });
    const { page2 } = await reloadedMidAnswer(1);
    const before = chat.posts().length;
    const streams = await Promise.all([1, 2, 3].map(() => page2.reconnectToStream({ chatId: 'chat-1' })));
    const texts = await Promise.all(streams.map(async (stream) => (await messageOf(stream!)).text));
    expect(texts).toEqual([FULL, FULL, FULL]);
    expect(chat.posts().length - before).toBe(1);
    expect(server.calls()).toBe(1);
  });

  it('shows one answer in two tabs resuming the same pending intent (localStorage): one model call, both whole', async () => {
    const server = await chat.start({ delayMs: 15 });
    const storage = memoryStorageAdapter(); // what two tabs share: localStorage
    const gone = new AbortController();
    await readSome(await sendHi(pageOn(storage, gone.signal)), 3);
    gone.abort(); // the tab that asked was reloaded
    const before = chat.posts().length;
    const tabs = [1, 2].map(() => pageOn(storage));
    const streams = await Promise.all(tabs.map((tab) => tab.reconnectToStream({ chatId: 'chat-1' })));
    const texts = await Promise.all(streams.map(async (stream) => (await messageOf(stream!)).text));
    expect(texts).toEqual([FULL, FULL]);
    expect(chat.posts().length - before).toBe(2); // one request per tab, both attached to the one generation
    expect(server.calls()).toBe(1);
  });

  it("does not stop the generation when useChat aborts a resume a newer one replaced (StrictMode's second mount)", async () => {
    const server = await chat.start({ delayMs: 15 });
    const { page2 } = await reloadedMidAnswer(4);
    // What useChat does on a StrictMode mount with resume: true: resume, abort that resume
    // as the second mount resumes again, then cancel the first one's stream when it arrives.
    const first = new AbortController();
    const firstResume = page2.reconnectToStream({ chatId: 'chat-1', abortSignal: first.signal });
    first.abort();
    const secondResume = page2.reconnectToStream({ chatId: 'chat-1', abortSignal: new AbortController().signal });
    await (await firstResume)?.cancel();
    const { text } = await messageOf((await secondResume)!);
    expect(text).toBe(FULL);
    expect(server.requests.filter((request) => request.method === 'DELETE')).toHaveLength(0);
    expect(server.calls()).toBe(1);
  });

  it('stops the generation on the server when the stream is aborted (stop()), and a later send of the message shows the stopped partial answer without a model call', async () => {
    const server = await chat.start({ delayMs: 20 });
    const transport = answerOnceTransport({ client: createClient(), api: server.api, stopGuardMs: 0 });
    const controller = new AbortController();
    const shown = await readSome(await sendHi(transport, controller.signal), 5);
    await sleep(100); // the model goes on past what was read
    await stop(controller);
    const later = answerOnceTransport({ client: createClient(), api: server.api });
    const { text } = await messageOf(await sendHi(later));
    expect(shown).toBe('word0 word1 ');
    expect(text).toBe(shown); // exactly what useChat had taken when it stopped
    expect(server.calls()).toBe(1);
  });

  it('shows the stopped partial answer after stop() and a reload (reconnectToStream), without a model call (vercel/ai #8390)', async () => {
    const server = await chat.start({ delayMs: 20 });
    const storage = memoryStorageAdapter();
    const controller = new AbortController();
    const shown = await readSome(await sendHi(pageOn(storage, undefined, 0), controller.signal), 5);
    await sleep(100); // the model goes on past what was read
    await stop(controller);
    const [stopped] = await storage.list();
    expect(stopped?.stopped).toBe(true); // kept past the stream's end, for the reload

    const kept = await reloaded(storage);
    const page2 = pageOn(kept);
    const resumed = await page2.reconnectToStream({ chatId: 'chat-1' });
    expect(resumed).not.toBeNull();
    const { text } = await messageOf(resumed!);
    // Exactly what the server kept: the status route replays it.
    const replay = await fetch(`${server.url}/api/status/${stopped!.requestId}`);
    expect(replay.headers.get('x-idempotent-stopped')).toBe('true');
    const storedDeltas = (await replay.text()).split('\n').filter((line) => line.startsWith('data: {"type":"text-delta"'));
    expect(text).toBe(storedDeltas.map((line) => (JSON.parse(line.slice(6)) as { delta: string }).delta).join(''));
    expect(text).toBe(shown);
    expect(server.calls()).toBe(1);
    await until(async () => (await kept.list()).length === 0); // shown again once: then forgotten as any answer
  });
});

/**
 * The stop guard: a stop within `stopGuardMs` (default 500 ms) of the send — a double-click's
 * second click on a Stop that took Send's place — stops nothing.
 */
describe('answerOnceTransport: a stop right after the send', () => {
  it.each([100, 200])(
    'does not call useChat’s stop %d ms after the send (guardStop), and stops after the guard',
    async (delay) => {
      const server = await chat.start({ delayMs: 20 });
      const transport = answerOnceTransport({ client: createClient(), api: server.api });
      let stops = 0;
      const stop = transport.guardStop(async () => void (stops += 1));
      const answer = sendHi(transport);
      await sleep(delay);
      await stop();
      expect(stops).toBe(0);
      // Well past the guard: the send starts its clock once its intent ID is minted (a digest
      // of the body, a few ms on a loaded machine), so 500 ms after `sendHi()` may still be inside it.
      await sleep(500 - delay + 100);
      await stop();
      expect(stops).toBe(1);
      await (await answer).cancel();
    },
  );

  it.each([100, 200])(
    'does not stop the generation when the stream is aborted %d ms after the send: one model call, the whole answer kept',
    async (delay) => {
      const server = await chat.start({ delayMs: 15 });
      const transport = answerOnceTransport({ client: createClient(), api: server.api });
      const controller = new AbortController();
      const started = Date.now();
      await sendHi(transport, controller.signal);
      await sleep(Math.max(0, delay - (Date.now() - started)));
      controller.abort();
      await sleep(300);
      expect(server.requests.filter((request) => request.method === 'DELETE')).toHaveLength(0);
      const later = answerOnceTransport({ client: createClient(), api: server.api });
      expect((await messageOf(await sendHi(later))).text).toBe(FULL);
      expect(server.calls()).toBe(1);
    },
  );

  it('takes the guard from stopGuardMs (0 turns it off), and refuses one that is not a timer, naming it', async () => {
    const server = await chat.start({ delayMs: 20 });
    const transport = answerOnceTransport({ client: createClient(), api: server.api, stopGuardMs: 0 });
    let stops = 0;
    const answer = sendHi(transport);
    await transport.guardStop(async () => void (stops += 1))();
    expect(stops).toBe(1);
    await (await answer).cancel();
    expect(() => answerOnceTransport({ client: createClient(), stopGuardMs: -5 })).toThrow(
      /answer-once\/ai: `stopGuardMs` must be an integer from 0/,
    );
  });
});

describe('answerOnceTransport: what it is given and what it fails with', () => {
  it('fails a send the chat route refuses with the client’s ResponseError, as client.send would: its status and the answer’s text', async () => {
    const refuse = async () => new Response('no such model', { status: 400, headers: { 'content-type': 'text/plain' } });
    const client = createClient({ fetch: refuse, baseUrl: 'http://127.0.0.1:9/' });
    const error: unknown = await sendHi(answerOnceTransport({ client, api: 'api/chat' })).catch((caught) => caught);
    expect(isResponseError(error) && [error.status, error.data]).toEqual([400, 'no such model']);
  });

  it('refuses a request that continues the assistant’s message without toolAnswers, naming the option, and sends nothing', async () => {
    let requests = 0;
    const fetch = async () => {
      requests += 1;
      return new Response(null, { status: 500 });
    };
    const client = createClient({ fetch });
    const approved: UIMessage = {
      id: 'msg-assistant-1',
      role: 'assistant',
      parts: [
        {
          type: 'tool-book',
          toolCallId: 'call-1',
          state: 'approval-responded',
          input: { table: 4 },
          approval: { id: 'approval-0001', approved: true },
        },
      ],
    };
    const send = answerOnceTransport({ client, api: 'http://127.0.0.1:9/api/chat' }).sendMessages({
      trigger: 'submit-message',
      chatId: 'chat-1',
      messageId: undefined,
      messages: [HI, approved],
      abortSignal: undefined,
    });
    await expect(send).rejects.toThrow(/needs `answerOnceTransport\(\{ toolAnswers \}\)`/);
    expect(requests).toBe(0);
  });

  it('refuses a client createClient did not make, naming it', () => {
    const lookalike = createClient();
    const copy = { ...lookalike };
    expect(() => answerOnceTransport({ client: copy })).toThrow(
      /answer-once: `client` must be a client made by createClient; got/,
    );
  });
});
