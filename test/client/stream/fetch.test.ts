import { createClient, memoryStorageAdapter, type SendEvent, streaming } from 'answer-once';
import { afterEach, describe, expect, it } from 'vitest';
import { sleep } from '../../support/sleep.js';
import { eventStreamOf, startStreamFake } from '../../support/stream-fake.js';

const TOKENS = Array.from({ length: 12 }, (_, i) => `token-${i} `);
type StreamFake = Awaited<ReturnType<typeof startStreamFake>>;
let fake: StreamFake | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function start(options: Parameters<typeof startStreamFake>[0]) {
  fake = await startStreamFake(options);
  return fake;
}

const post = (body = '{"q":"hi"}'): RequestInit => ({
  method: 'POST',
  body,
  headers: { 'content-type': 'application/json' },
});
const generationOf = (response: Response) => Number(response.headers.get('x-idempotent-generation'));

/**
 * Fetches the chat route with a client whose events are kept, and reads the body whole: its
 * text, the generation the response began with, and the intent's generation once read.
 */
async function readAnswer(server: StreamFake) {
  const events: SendEvent[] = [];
  const client = createClient({ streaming, onEvent: (event) => events.push(event) });
  const response = await client.fetch(`${server.url}/chat`, post());
  const began = generationOf(response);
  const text = await response.text();
  const current = server.intents.values().next().value!.current.number;
  return { events, text, began, current };
}

/** The body of an answer whose generation `began` broke after `kept` tokens: the restart marker, then `current` whole. */
const restartedBody = (kept: number, began: number, current: number) =>
  eventStreamOf(TOKENS.slice(0, kept), began) +
  `event: answer-once.restart\ndata: {"generation":${current}}\nid: ${current}.0\n\n` +
  eventStreamOf(TOKENS, current);

describe('client.fetch', () => {
  it('streams an answer through untouched when nothing breaks: one request, one model call', async () => {
    const server = await start({ tokens: TOKENS });
    const client = createClient({ streaming });
    const response = await client.fetch(`${server.url}/chat`, post());
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(await response.text()).toBe(eventStreamOf(TOKENS, generationOf(response)));
    expect(server.stats).toMatchObject({ modelCalls: 1, requests: 1 });
  });

  it('continues an event stream whose socket was destroyed mid-answer: every event once, none missing, one model call', async () => {
    const server = await start({ tokens: TOKENS, cuts: [3, 4] });
    const { events, text, began: generation } = await readAnswer(server);
    expect(text).toBe(eventStreamOf(TOKENS, generation));
    expect(server.stats.modelCalls).toBe(1);
    expect(server.stats.requests).toBe(3);
    const reconnects = events.filter((event) => event.type === 'reconnect');
    expect(reconnects).toMatchObject([
      { reconnects: 1, reason: 'cut' },
      { reconnects: 2, reason: 'cut' },
    ]);
    // Each reconnect named the position just after the last whole event it had.
    const ids = server.stats.requestHeaders.map((headers) => headers['last-event-id']);
    const body = eventStreamOf(TOKENS, generation);
    const positionAfter = (n: number) => `${generation}.${Buffer.byteLength(eventStreamOf(TOKENS.slice(0, n), generation))}`;
    expect(ids).toEqual([undefined, positionAfter(3), positionAfter(7)]);
    expect(body.includes(`id: ${positionAfter(7)}\n`)).toBe(true);
    expect(events.at(-1)).toMatchObject({ type: 'settled', outcome: 'answered' });
  });

  it('continues a text body by Range and its generation: the exact text once, one model call', async () => {
    const server = await start({ tokens: TOKENS, kind: 'text', cuts: [5] });
    const client = createClient({ streaming });
    const response = await client.fetch(`${server.url}/chat`, post());
    expect(await response.text()).toBe(TOKENS.join(''));
    expect(server.stats.modelCalls).toBe(1);
    const generation = generationOf(response);
    expect(server.stats.requestHeaders[1]).toMatchObject({
      range: `bytes=${TOKENS.slice(0, 5).join('').length}-`,
      'x-idempotent-generation': String(generation),
    });
  });

  it('hands on the restart marker when the producer died mid-answer, then the new generation whole', async () => {
    const server = await start({ tokens: TOKENS, dieAfter: 4 });
    const { events, text, began, current } = await readAnswer(server);
    expect(text).toBe(restartedBody(4, began, current));
    expect(events.filter((event) => event.type === 'restart')).toMatchObject([{ generation: current }]);
    expect(server.stats.modelCalls).toBe(2); // the takeover's run: the dead producer's never finished
  });

  it('treats the error marker as a reconnect: the resend runs the work again and the body restarts in-band', async () => {
    const server = await start({ tokens: TOKENS, failAfter: 3 });
    const { events, text, began, current } = await readAnswer(server);
    expect(text).not.toContain('answer-once.error');
    expect(text).toBe(restartedBody(3, began, current));
    expect(events.filter((event) => event.type === 'reconnect')).toMatchObject([{ reason: 'error-marker' }]);
  });

  it('uses the ID the caller put in the request: the same ID twice is one model call, the second a flagged replay', async () => {
    const server = await start({ tokens: TOKENS, intervalMs: 1 });
    const client = createClient({ streaming });
    const init = {
      ...post(),
      headers: { 'content-type': 'application/json', 'X-Request-Id': '01JD6X0Y4Z5KQ8R2M3N7P9S1T0' },
    };
    const first = await client.fetch(`${server.url}/chat`, init);
    const a = await first.text();
    const second = await client.fetch(`${server.url}/chat`, init);
    expect(second.headers.get('x-idempotent-replayed')).toBe('true');
    expect(await second.text()).toBe(a);
    expect(server.stats.modelCalls).toBe(1);
  });

  it("honours a Request's method, headers and body, and resolves a relative input against baseUrl", async () => {
    const server = await start({ tokens: TOKENS.slice(0, 2), intervalMs: 1 });
    const client = createClient({ streaming, baseUrl: `${server.url}/` });
    const relative = await client.fetch('chat', post());
    expect(relative.status).toBe(200);
    await relative.text();
    const request = new Request(`${server.url}/chat`, {
      method: 'POST',
      body: '{"q":"again"}',
      headers: { 'X-Request-Id': 'req-from-a-request' },
    });
    const response = await client.fetch(request);
    await response.text();
    expect([...server.intents.keys()]).toContain('req-from-a-request');
  });

  it('keeps the intent in storage while its body streams and forgets it when the body ends', async () => {
    const server = await start({ tokens: TOKENS, intervalMs: 5 });
    const storage = memoryStorageAdapter();
    const client = createClient({ streaming, storage });
    const response = await client.fetch(`${server.url}/chat`, post());
    expect(await storage.list()).toHaveLength(1);
    await response.text();
    await sleep(0);
    expect(await storage.list()).toHaveLength(0);
  });

  it('errors the body with an AbortError when the signal fires mid-answer', async () => {
    const server = await start({ tokens: TOKENS, intervalMs: 20 });
    const client = createClient({ streaming });
    const controller = new AbortController();
    const response = await client.fetch(`${server.url}/chat`, { ...post(), signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
  });
});
