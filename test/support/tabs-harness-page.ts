/**
 * The page the tabs specs drive through the library's own API, in real Chromium: bundled
 * by esbuild (./tabs-harness.ts) and served on the chat demo's origin, so it talks to the
 * demo's real server and shares the origin's localStorage, IndexedDB, Web Locks and
 * BroadcastChannel with the other tabs. The client is the demo's (localStorage, shared
 * tabs, IndexedDB outbox); `?idle=<ms>` sets its `idleTimeout`. `window.harness` reads
 * one answer at a time: what it shows, and how it ended.
 */
import { createClient, localStorageAdapter, shareTabs, type StoredIntent } from 'answer-once';
import { indexedDbOutbox } from 'answer-once/outbox';

const idle = Number(new URLSearchParams(location.search).get('idle'));
const storage = localStorageAdapter({ prefix: 'answer-once-demo:intent:' });
const client = createClient({
  baseUrl: `${location.origin}/api/`,
  storage,
  tabs: shareTabs(),
  outbox: indexedDbOutbox({ name: 'answer-once-demo-outbox' }),
  retry: { limit: 5, delay: 300 },
  ...(idle > 0 && { idleTimeout: idle }),
});

/** One answer as this tab shows it: its tokens so far, and how it ended. */
const shown = { text: '', done: false, error: undefined as string | undefined };
let reading = new AbortController();

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
  /** Stops reading (the reader leaves: a closed panel, a route change). */
  abort: () => reading.abort(),
  shown: () => ({ ...shown }),
  pending: async () => (await storage.list()).map((intent) => intent.requestId),
};

export type Harness = typeof harness;

(globalThis as { harness?: Harness }).harness = harness;
