/**
 * Tab sharing when a tab misbehaves: a follower that leaves, a reading tab whose page
 * stops running with the lock held, a tab that joins while no tab reads. Fake tabs of one
 * origin (test/support/fake-tabs.ts) over the reference server on loopback; one storage
 * for every tab, as `localStorage` is for the tabs of an origin.
 */

import {
  type AnswerOnceClient,
  createClient,
  memoryStorageAdapter,
  type StorageAdapter,
  shareTabs,
  streaming,
} from 'answer-once';
import { describe, expect, it } from 'vitest';
import { type FakeTab, fakeOrigin } from '../../support/fake-tabs.js';
import { loopbackRigs } from '../../support/loopback-rig.js';
import { sseResponse } from '../../support/sse-response.js';
import { tokensOf, within } from '../../support/token-stream.js';

const TOKENS = Array.from({ length: 30 }, (_, i) => `t${i}`);
const EVENTS = TOKENS.map((token) => `data: ${token}\n\n`);
const WHOLE = TOKENS.join(' ');
const rig = loopbackRigs();

/** One tab's client: the origin's storage, locks and channels. */
const clientOf = (tab: FakeTab, storage: StorageAdapter, idleTimeout?: number): AnswerOnceClient =>
  createClient({
    streaming,
    storage,
    retry: { limit: 3, delay: 10 },
    tabs: shareTabs({ locks: tab.locks, channel: tab.channel }),
    ...(idleTimeout !== undefined && { idleTimeout }),
  });

/** The same intent as every tab sends it (the same ID and body: a resume, a duplicated tab). */
const ask = (client: AnswerOnceClient, url: string, id: string, signal?: AbortSignal) =>
  client.fetch(`${url}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: '{"q":"hi"}',
    ...(signal && { signal }),
  });

/** The answer's first `count` events, then the rest once `held` resolves. */
function heldAfter(count: number, held: Promise<void>): Response {
  const encoder = new TextEncoder();
  let index = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (index === count) await held;
      if (index === EVENTS.length) return controller.close();
      controller.enqueue(encoder.encode(EVENTS[index++]));
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

describe('tab sharing when a tab misbehaves (shareTabs)', () => {
  it('a follower tab that aborts leaves the stored intent to the reading tab: its reload mid-answer resumes it, the whole answer, one model call', async () => {
    // The model writes 10 tokens, then waits until the reload is done: no tab can have
    // read the whole answer (and settled it) before.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const server = await rig(async () => heldAfter(10, held));
    const origin = fakeOrigin();
    const storage = memoryStorageAdapter();
    const [a, b] = [origin.tab(), origin.tab()];
    const id = '01JTABOWNER000000000000000';
    await ask(clientOf(a, storage), server.url, id);

    const leaving = new AbortController();
    const follower = await ask(clientOf(b, storage), server.url, id, leaving.signal);
    await tokensOf(follower, (count) => {
      if (count >= 5) leaving.abort();
    }).catch(() => undefined);
    expect((await storage.list()).map((intent) => intent.requestId)).toEqual([id]);

    // The reading tab reloads mid-answer (its page's code stops where it is; its lock is
    // released): the new page resumes what storage holds.
    a.close();
    const [stored] = await storage.list();
    expect(stored?.requestId).toBe(id);
    const resumed = await clientOf(origin.tab(), storage).stream(stored!);
    release();
    expect((await tokensOf(resumed.response)).join(' ')).toBe(WHOLE);
    expect(server.calls()).toBe(1);
    expect(await storage.list()).toEqual([]);
  });

  it('a reading tab whose page stopped running with the lock held: a follower reads on itself after idleTimeout, from its last event — the whole answer, one model call', async () => {
    const server = await rig(async () => sseResponse(EVENTS, 20));
    const origin = fakeOrigin();
    const storage = memoryStorageAdapter();
    const [a, b] = [origin.tab(), origin.tab()];
    const id = '01JTABHUNG0000000000000000';
    const IDLE_MS = 300;
    void tokensOf(await ask(clientOf(a, storage, IDLE_MS), server.url, id)).catch(() => []);
    let frozenAt = 0;
    const shown = tokensOf(await ask(clientOf(b, storage, IDLE_MS), server.url, id), (count) => {
      if (count >= 8 && frozenAt === 0) {
        frozenAt = Date.now();
        a.freeze();
      }
    });
    expect((await within(shown, 3_000)).join(' ')).toBe(WHOLE);
    expect(server.calls()).toBe(1);
    const [, takeover, ...more] = server.requests.filter((request) => request.method === 'POST');
    expect(more).toEqual([]);
    expect(takeover?.lastEventId).toMatch(/^\d+\.[1-9]\d*$/);
  });

  it('a tab that joins while no tab reads (the reading tab just went) asks again and follows the next: no stream request of its own', async () => {
    const server = await rig(async () => sseResponse(EVENTS, 20));
    const origin = fakeOrigin();
    const storage = memoryStorageAdapter();
    const [a, b, c] = [origin.tab(), origin.tab(), origin.tab()];
    const id = '01JTABREASK000000000000000';
    const leaving = new AbortController();
    void tokensOf(await ask(clientOf(a, storage), server.url, id, leaving.signal)).catch(() => []);
    let late: Promise<string[]> | undefined;
    const second = tokensOf(await ask(clientOf(b, storage), server.url, id), (count) => {
      if (count < 8 || late) return;
      // The reading tab goes; a tab joins before the next one took the lock over.
      a.close();
      leaving.abort();
      late = ask(clientOf(c, storage), server.url, id).then((response) => tokensOf(response));
    });
    expect((await second).join(' ')).toBe(WHOLE);
    expect((await late!).join(' ')).toBe(WHOLE);
    // The first tab's request, and the takeover from its last event: none from the start again.
    const posts = server.requests.filter((request) => request.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(server.calls()).toBe(1);
  });

  it('Web Locks refused (site data blocked): the tab reads its own stream, as without the option — the whole answer', async () => {
    const server = await rig(async () => sseResponse(EVENTS, 2));
    const origin = fakeOrigin();
    const tab = origin.tab();
    const denied = { request: () => Promise.reject(new DOMException('The request was denied.', 'SecurityError')) };
    const client = createClient({
      streaming,
      storage: memoryStorageAdapter(),
      tabs: shareTabs({ locks: denied, channel: tab.channel }),
    });
    const tokens = await tokensOf(await ask(client, server.url, '01JTABDENIED00000000000000'));
    expect(tokens.join(' ')).toBe(WHOLE);
    expect(server.calls()).toBe(1);
  });
});
