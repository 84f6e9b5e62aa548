/**
 * answerOnceTransport over a client with `tabs` and `outbox`: the AI SDK's resume in
 * every tab makes one request; a message sent offline waits and streams once back online,
 * and after a closed tab the reopened chat's reconnect sends it. Real `ai` package, the
 * reference handler on 127.0.0.1; fake Web Locks and channels, fake-indexeddb.
 */

import { createClient, memoryStorageAdapter, type SendEvent, type StorageAdapter, shareTabs } from 'answer-once';
import { answerOnceTransport } from 'answer-once/ai';
import { indexedDbOutbox } from 'answer-once/outbox';
import { describe, expect, it } from 'vitest';
import { WORDS } from '../support/ai-chat-server.js';
import { HI, sendHi, textOf, useAiChatServer } from '../support/ai-transport.js';
import { fakeOrigin } from '../support/fake-tabs.js';
import { freshDatabase, networkSwitch } from '../support/outbox-rig.js';
import { sleep } from '../support/sleep.js';

const chat = useAiChatServer();

const FULL = WORDS.join('');

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 5_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe('answerOnceTransport with shareTabs', () => {
  it('the resume in every tab (shared localStorage) reads one stream: one request for all tabs, one model call, each whole', async () => {
    const server = await chat.start({ delayMs: 15 });
    const storage = memoryStorageAdapter(); // what the tabs share: localStorage
    const origin = fakeOrigin();
    const page = (shared: StorageAdapter) => {
      const tab = origin.tab();
      const client = createClient({ storage: shared, tabs: shareTabs({ locks: tab.locks, channel: tab.channel }) });
      return answerOnceTransport({ client, api: chat.server.api });
    };
    const first = sendHi(page(storage));
    await until(() => chat.posts().length === 1, 'the first send');
    const tabs = [page(storage), page(storage)];
    const resumed = await Promise.all(tabs.map((tab) => tab.reconnectToStream({ chatId: 'chat-1' })));
    const texts = await Promise.all([first.then(textOf), ...resumed.map((stream) => textOf(stream!))]);
    expect(texts).toEqual([FULL, FULL, FULL]);
    expect(chat.posts()).toHaveLength(1);
    expect(server.calls()).toBe(1);
  });
  it('keeps what the tab that pressed Stop showed: a reload in any tab shows exactly that text, with no model call', async () => {
    const server = await chat.start({ delayMs: 20 });
    const storage = memoryStorageAdapter(); // localStorage, shared by the tabs
    const origin = fakeOrigin();
    const page = () => {
      const tab = origin.tab();
      const client = createClient({ storage, tabs: shareTabs({ locks: tab.locks, channel: tab.channel }) });
      return answerOnceTransport({ client, api: chat.server.api, stopGuardMs: 0 });
    };
    const first = await sendHi(page()); // tab 1 leads: it reads the network
    const firstReader = first.getReader();
    await firstReader.read();
    // Tab 2 (a reload, or a second tab) follows tab 1's stream, shows a few words, and stops.
    const stopping = new AbortController();
    const second = await page().reconnectToStream({ chatId: 'chat-1', abortSignal: stopping.signal });
    const reader = second!.getReader();
    let shown = '';
    while (shown.split(' ').length < 4) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the answer ended before the stop');
      if (value.type === 'text-delta') shown += value.delta;
    }
    stopping.abort();
    await until(() => chat.server.requests.some((request) => request.method === 'DELETE'), 'the stop');
    await until(async () => (await storage.list()).every((intent) => intent.stopped === true), 'the stop to be kept');
    await firstReader.cancel();
    // A third tab opened now replays the stopped answer: the text tab 2 showed, no more.
    const third = await page().reconnectToStream({ chatId: 'chat-1' });
    expect(third).not.toBeNull();
    expect(await textOf(third!)).toBe(shown);
    expect(shown.length).toBeGreaterThan(0);
    expect(FULL.startsWith(shown) && shown.length < FULL.length).toBe(true);
    expect(server.calls()).toBe(1);
    expect(chat.posts()).toHaveLength(2); // the send, and the third tab's replay
  });
});

describe('answerOnceTransport with an outbox', () => {
  it('a message sent offline waits (a queued event, no request), then streams once when the browser is back online', async () => {
    const server = await chat.start({ delayMs: 2 });
    const network = networkSwitch(false);
    const events: SendEvent[] = [];
    const client = createClient({
      storage: memoryStorageAdapter(),
      outbox: indexedDbOutbox({ name: freshDatabase(), network }),
      onEvent: (event) => events.push(event),
    });
    const stream = sendHi(answerOnceTransport({ client, api: server.api }));
    await until(() => events.some((event) => event.type === 'queued'), 'queued');
    expect(chat.posts()).toHaveLength(0);
    network.set(true);
    expect(await textOf(await stream)).toBe(FULL);
    expect(server.calls()).toBe(1);
  });

  it('after a closed tab, the reopened chat’s reconnectToStream sends what waited in the outbox, with its ID', async () => {
    const server = await chat.start({ delayMs: 2 });
    const name = freshDatabase();
    const closed = createClient({
      storage: memoryStorageAdapter(), // sessionStorage: gone with the tab
      outbox: indexedDbOutbox({ name, network: networkSwitch(false) }),
    });
    void sendHi(answerOnceTransport({ client: closed, api: server.api }));
    await until(async () => (await closed.pending(chat.server.api)) !== undefined, 'kept');
    const kept = (await closed.pending(server.api))?.requestId;
    expect(kept?.startsWith(HI.id)).toBe(true); // the message's intent (its id, and its content's)
    expect(chat.posts()).toHaveLength(0);

    const reopened = createClient({
      storage: memoryStorageAdapter(),
      outbox: indexedDbOutbox({ name, network: networkSwitch(true) }),
    });
    const stream = await answerOnceTransport({ client: reopened, api: server.api }).reconnectToStream({
      chatId: 'chat-1',
    });
    expect(await textOf(stream!)).toBe(FULL);
    expect(chat.posts()).toHaveLength(1);
    expect(server.calls()).toBe(1);
    expect(await reopened.pending(server.api)).toBeUndefined(); // sent with that ID, and settled
  });
});
