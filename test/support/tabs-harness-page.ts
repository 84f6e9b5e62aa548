/**
 * The page the tabs specs drive through the library's own API, in real Chromium: bundled
 * by esbuild (./tabs-harness.ts) and served on the chat demo's origin, so it talks to the
 * demo's real server and shares the origin's localStorage, IndexedDB, Web Locks and
 * BroadcastChannel with the other tabs. The client is the demo's (localStorage, shared
 * tabs, IndexedDB outbox); `?idle=<ms>` sets its `idleTimeout`. `window.harness` reads
 * one answer at a time: what it shows, and how it ended.
 */
import { createClient, localStorageAdapter, type SendEvent, type StoredIntent, shareTabs, streaming } from 'answer-once';
import { indexedDbOutbox } from 'answer-once/outbox';

const idle = Number(new URLSearchParams(location.search).get('idle'));
const outbox = indexedDbOutbox({ name: 'answer-once-demo-outbox' });
const storage = localStorageAdapter({ prefix: 'answer-once-demo:intent:' });
const client = createClient({
  streaming,
  baseUrl: `${location.origin}/api/`,
  storage,
  tabs: shareTabs(),
  outbox,
  retry: { limit: 5, delay: 300 },
  ...(idle > 0 && { idleTimeout: idle }),
});

/** One answer as this tab shows it: its tokens so far, and how it ended. */
const shown = { text: '', done: false, error: undefined as string | undefined };
let reading = new AbortController();
let resumedQueued = false;

/** Shows `response`'s tokens (the `data: <token>` lines of its events) as they come. */
async function show(response: Response): Promise<void> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      const units = buffer.split('\n\n');
      buffer = units.pop()!;
      for (const line of units.flatMap((unit) => unit.split('\n')))
        if (line.startsWith('data: ')) shown.text += line.slice('data: '.length);
    }
    shown.done = true;
  } catch (error) {
    shown.error = (error as Error).name;
  }
}

/** The SSE text of one answer read whole by `client.send`: its tokens. */
const tokensOf = (events: unknown) =>
  String(events)
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice('data: '.length))
    .join('');

/** Shows the answer `send` settles with, once it does. */
async function settle(send: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
  reading = new AbortController();
  Object.assign(shown, { text: '', done: false, error: undefined });
  try {
    shown.text = tokensOf(await send(reading.signal));
    shown.done = true;
  } catch (error) {
    shown.error = (error as Error).name;
  }
}

/** Sends (or resumes) one intent, as the demo does, and shows its answer. */
async function read(start: (signal: AbortSignal) => Promise<Response>): Promise<void> {
  reading = new AbortController();
  Object.assign(shown, { text: '', done: false, error: undefined });
  try {
    void show(await start(reading.signal));
  } catch (error) {
    shown.error = (error as Error).name;
  }
}

const harness = {
  /** Asks `question` as intent `requestId`; resolves once its answer began. */
  ask: (question: string, requestId: string) =>
    read((signal) =>
      client.fetch('chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': requestId },
        body: JSON.stringify({ content: question }),
        signal,
      }),
    ),
  /** Resumes the oldest pending intent (storage, then the outbox), as a reload does. */
  async resume(): Promise<string | undefined> {
    const [stored]: readonly StoredIntent[] = await storage.list();
    if (stored) await read(async (signal) => (await client.stream(stored, { signal })).response);
    return stored?.requestId;
  },
  /** Sends `question` as intent `requestId` with `client.send` (the answer read whole, no tab sharing). */
  send(question: string, requestId: string): void {
    void settle(async (signal) => (await client.send('chat', { json: { content: question }, requestId, signal })).data);
  },
  /** Resumes every pending intent with `client.resume()` (storage and outbox), as a reload does; shows the first. */
  resumeAll(): void {
    resumedQueued = false;
    void settle(async (signal) => {
      const onEvent = (event: SendEvent) => void (resumedQueued ||= event.type === 'queued');
      const [first] = await client.resume({ signal, onEvent });
      if (!first?.ok) throw first?.error ?? new Error('nothing to resume');
      return first.result.data;
    });
  },
  /** Whether a send `resumeAll` resumed waits in this tab's outbox (it said `queued`). */
  resumedQueued: () => resumedQueued,
  /** The IDs of the sends waiting in the outbox. */
  queued: async () => (await outbox.list()).map((intent) => intent.requestId),
  /** Stops reading (the reader leaves: a closed panel, a route change). */
  abort: () => reading.abort(),
  shown: () => ({ ...shown }),
  pending: async () => (await storage.list()).map((intent) => intent.requestId),
};

export type Harness = typeof harness;

(globalThis as { harness?: Harness }).harness = harness;
