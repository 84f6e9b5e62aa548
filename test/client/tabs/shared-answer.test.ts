import { type AnswerOnceClient, createClient, memoryStorageAdapter, shareTabs, streaming } from 'answer-once';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type FakeTab, fakeOrigin } from '../../support/fake-tabs.js';
import { loopbackRigs } from '../../support/loopback-rig.js';
import { sleep } from '../../support/sleep.js';
import { sseResponse } from '../../support/sse-response.js';
import { tokensOf } from '../../support/token-stream.js';

const TOKENS = Array.from({ length: 30 }, (_, i) => `t${i}`);
const EVENTS = TOKENS.map((token) => `data: ${token}\n\n`);
const WHOLE = TOKENS.join(' ');
const ID = '01JTABSHARE0000000000000000';
const rig = loopbackRigs();

afterEach(() => {
  vi.unstubAllGlobals();
});

/** The chat route, its tokens one every `delayMs`: counts model calls and requests. */
const start = (delayMs = 15) => rig(async () => sseResponse(EVENTS, delayMs));

/** One tab's client: its own storage, the origin's locks and channels. */
const clientOf = (tab: FakeTab | undefined): AnswerOnceClient =>
  createClient({
    streaming,
    storage: memoryStorageAdapter(),
    retry: { limit: 3, delay: 10 },
    ...(tab && { tabs: shareTabs({ locks: tab.locks, channel: tab.channel }) }),
  });

/** The same intent as every tab sends it: the same ID and body (a resume, a duplicated tab). */
const ask = (client: AnswerOnceClient, signal?: AbortSignal) =>
  client.fetch(`${urlOf()}/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': ID },
    body: '{"q":"hi"}',
    ...(signal && { signal }),
  });
let url = '';
const urlOf = () => url;

const posts = (server: Awaited<ReturnType<typeof start>>) => server.requests.filter((r) => r.method === 'POST');

describe('tabs of one origin reading one intent (shareTabs)', () => {
  it('make one stream request and one model call, and every tab shows the whole answer', async () => {
    const server = await start();
    url = server.url;
    const origin = fakeOrigin();
    const tabs = [origin.tab(), origin.tab(), origin.tab()];
    const answers = await Promise.all(tabs.map(async (tab) => tokensOf(await ask(clientOf(tab)))));
    for (const tokens of answers) expect(tokens.join(' ')).toBe(WHOLE);
    expect(server.calls()).toBe(1);
    expect(posts(server)).toHaveLength(1);
  });

  it('a tab that joins mid-answer gets every part so far, then the live ones, over no request of its own', async () => {
    const server = await start();
    url = server.url;
    const origin = fakeOrigin();
    const first = ask(clientOf(origin.tab()));
    let late: Promise<string[]> | undefined;
    const leader = tokensOf(await first, (count) => {
      if (count >= 10) late ??= ask(clientOf(origin.tab())).then((response) => tokensOf(response));
    });
    expect((await leader).join(' ')).toBe(WHOLE);
    expect((await late!).join(' ')).toBe(WHOLE);
    expect(posts(server)).toHaveLength(1);
  });

  it('when the leading tab closes mid-answer, another carries on from its last event: no token twice, none missing, one model call', async () => {
    const server = await start(20);
    url = server.url;
    const origin = fakeOrigin();
    const [a, b] = [origin.tab(), origin.tab()];
    const leaving = new AbortController();
    // A reads first (it holds the lock once its answer began); B follows it. Closing A
    // ends its network read (its signal) and frees its lock.
    await ask(clientOf(a), leaving.signal);
    const follower = ask(clientOf(b));
    let closedAt = 0;
    let takenAt = 0;
    const shown = tokensOf(await follower, (count) => {
      if (count >= 8 && closedAt === 0) {
        closedAt = Date.now();
        a.close();
        leaving.abort();
      }
      if (closedAt > 0 && takenAt === 0 && count > 8) takenAt = Date.now();
    });
    const tokens = await shown;
    expect(tokens.join(' ')).toBe(WHOLE);
    expect(server.calls()).toBe(1);
    const [, takeover, ...more] = posts(server);
    expect(more).toEqual([]);
    // From where it was (§ 14.5), not from the start.
    expect(takeover?.lastEventId).toMatch(/^\d+\.[1-9]\d*$/);
    expect(takenAt - closedAt).toBeLessThan(1_000);
  });

  it('without Web Locks, every tab reads its own stream (as without the option)', async () => {
    vi.stubGlobal('navigator', {});
    const server = await start(5);
    url = server.url;
    const client = () => createClient({ streaming, storage: memoryStorageAdapter(), tabs: shareTabs() });
    const answers = await Promise.all([client(), client()].map(async (c) => tokensOf(await ask(c))));
    for (const tokens of answers) expect(tokens.join(' ')).toBe(WHOLE);
    expect(posts(server)).toHaveLength(2);
    expect(server.calls()).toBe(1);
  });

  it('refuses a lock manager that is not one, naming the option', () => {
    expect(() => shareTabs({ locks: {} as never })).toThrow(/`locks` must be a lock manager/);
    expect(() => createClient({ streaming, tabs: {} as never })).toThrow(/`tabs` must be shareTabs\(\)/);
  });
});

describe('a tab following another tab’s read (the channel’s messages)', () => {
  const encoder = new TextEncoder();
  const piece = (from: number | null, to: number, text: string) => ({
    from: from === null ? null : { generation: 1, offset: from },
    to: { generation: 1, offset: to },
    bytes: encoder.encode(text),
  });
  const head = { status: 200, statusText: 'OK', headers: [['content-type', 'text/plain']], url: '', replayed: false };

  it('that missed the start and hears the end first asks for what it missed: the whole answer, never a part', async () => {
    const origin = fakeOrigin();
    const reading = origin.tab();
    const name = `answer-once:intent:${ID}`;
    // The reading tab holds the intent's lock and answers a hello with everything it has.
    let release!: () => void;
    void reading.locks.request(name, {}, () => new Promise<void>((resolve) => (release = resolve)));
    const channel = reading.channel(name);
    const pieces = [piece(null, 3, 'one'), piece(3, 6, 'two')];
    // Its answer to the follower's hello is late: the end goes out first.
    channel.onmessage = ({ data }) => {
      if ((data as { t: string }).t !== 'hello') return;
      setTimeout(() => channel.postMessage({ t: 'state', head, pieces, ended: true }), 100);
    };
    const follower = origin.tab();
    const client = createClient({ streaming, tabs: shareTabs({ locks: follower.locks, channel: follower.channel }) });
    const response = client.fetch(`https://chat.test/chat`, {
      method: 'POST',
      headers: { 'x-request-id': ID },
      body: '{}',
    });
    // It hears only the second part and the end (it joined late).
    await sleep(20);
    channel.postMessage({ t: 'head', head });
    channel.postMessage({ t: 'chunk', piece: pieces[1] });
    channel.postMessage({ t: 'end', at: pieces[1]!.to });
    expect(await (await response).text()).toBe('onetwo');
    release();
  });
});
