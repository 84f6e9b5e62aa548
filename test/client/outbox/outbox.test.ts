import { createClient, isAbortError, SendController, type SendState } from 'answer-once';
import { indexedDbOutbox } from 'answer-once/outbox';
import { describe, expect, it } from 'vitest';
import { ask, chatRoute, freshDatabase, page, URL_, until } from '../../support/outbox-rig.js';
import { sleep } from '../../support/sleep.js';

describe('the outbox (indexedDbOutbox)', () => {
  it('keeps a send made offline with its ID and body as first minted, sends nothing, and sends it once back online', async () => {
    const route = chatRoute();
    const tab = page(route, freshDatabase(), false);
    const sent = tab.client.send(URL_, ask('hello'));
    await until(() => tab.events.some((e) => e.type === 'queued'), 'queued');
    expect(tab.events.find((e) => e.type === 'queued')).toMatchObject({ queued: 1 });
    const [kept] = await tab.outbox.list();
    expect(kept).toMatchObject({ input: URL_, method: 'POST', body: '{"content":"hello"}' });
    expect(route.requests).toEqual([]);

    tab.network.set(true);
    const result = await sent;
    expect(result.data).toEqual({ answer: 'to hello' });
    expect(result.requestId).toBe(kept!.requestId);
    expect(route.ran).toEqual([kept!.requestId]);
    expect(await tab.outbox.list()).toEqual([]);
  });

  it('three sends made offline, the tab closed, a new tab online: three answers in the order they were made, three model calls, none twice', async () => {
    const route = chatRoute();
    const name = freshDatabase();
    const closed = page(route, name, false);
    for (const content of ['one', 'two', 'three']) {
      void closed.client.send(URL_, ask(content));
      await until(
        () => closed.events.filter((e) => e.type === 'queued').length === ['one', 'two', 'three'].indexOf(content) + 1,
        content,
      );
    }
    const kept = (await closed.outbox.list()).map((intent) => intent.requestId);
    expect(kept).toHaveLength(3);
    expect(route.requests).toEqual([]);

    // The closed tab is gone (its network never comes back); a new one opens online.
    const reopened = page(route, name, true);
    const outcomes = await reopened.client.resume();
    expect(outcomes.map((o) => o.ok && (o.result.data as { answer: string }).answer)).toEqual([
      'to one',
      'to two',
      'to three',
    ]);
    expect(outcomes.map((o) => o.requestId)).toEqual(kept);
    expect(route.ran).toEqual(kept);
    expect(await reopened.outbox.list()).toEqual([]);
  });

  it('keeps a send whose every attempt failed on the network, instead of failing it, and sends it when the network is back', async () => {
    const route = chatRoute();
    route.reachable(false);
    const tab = page(route, freshDatabase(), true);
    const sent = tab.client.send(URL_, ask('through a tunnel'));
    await until(() => tab.events.some((e) => e.type === 'queued'), 'queued');
    expect(route.requests.length).toBe(3); // the first attempt and its 2 retries
    expect(tab.events.some((e) => e.type === 'settled')).toBe(false);

    route.reachable(true);
    tab.network.set(true);
    expect((await sent).data).toEqual({ answer: 'to through a tunnel' });
    expect(route.ran).toHaveLength(1);
  });

  it('a send aborted while it waits is not sent later', async () => {
    const route = chatRoute();
    const tab = page(route, freshDatabase(), false);
    const abort = new AbortController();
    const sent = tab.client.send(URL_, { ...ask('never mind'), signal: abort.signal });
    await until(() => tab.events.some((e) => e.type === 'queued'), 'queued');
    abort.abort();
    await expect(sent).rejects.toSatisfy(isAbortError);
    expect(await tab.outbox.list()).toEqual([]);
    tab.network.set(true);
    await sleep(20);
    expect(route.requests).toEqual([]);
  });

  it('refuses bad options, naming them', () => {
    expect(() => indexedDbOutbox({ name: '' })).toThrow(/`name` must be a non-empty string/);
    expect(() => indexedDbOutbox({ network: {} as never })).toThrow(/`network.online` must be a function/);
    expect(() => createClient({ outbox: {} as never })).toThrow(/`outbox` must be an outbox/);
  });
});

describe('SendController with an outbox', () => {
  it('shows `offline` with the number queued, a second send queues after the first, and back online each is answered in order', async () => {
    const route = chatRoute();
    const tab = page(route, freshDatabase(), false);
    const chat = new SendController<{ answer: string }, { content: string }>(tab.client, URL_);
    const seen: SendState<{ answer: string }, { content: string }>[] = [];
    chat.subscribe(() => seen.push(chat.getSnapshot()));

    const first = chat.send(ask('one'));
    await until(() => chat.getSnapshot().status === 'offline', 'offline');
    expect(chat.getSnapshot()).toMatchObject({ status: 'offline', queued: 1, json: { content: 'one' } });
    const second = chat.send(ask('two'));
    await until(() => chat.getSnapshot().queued === 2, 'two queued');
    expect(chat.getSnapshot()).toMatchObject({ status: 'offline', queued: 2, json: { content: 'two' } });
    expect(route.requests).toEqual([]);

    tab.network.set(true);
    const [one, two] = await Promise.all([first, second]);
    expect(one).toMatchObject({ status: 'answered', data: { answer: 'to one' } });
    expect(two).toMatchObject({ status: 'answered', data: { answer: 'to two' } });
    expect(route.ran).toEqual([one.requestId, two.requestId]);
    // What the UI showed: each answer in turn, the first before the second.
    const answered = seen.filter((s) => s.status === 'answered').map((s) => s.data?.answer);
    expect(answered).toEqual(['to one', 'to two']);
  });

  it('resume() in a new tab sends what a closed tab left in the outbox, one after the other, in order', async () => {
    const route = chatRoute();
    const name = freshDatabase();
    const closed = page(route, name, false);
    const old = new SendController(closed.client, URL_);
    void old.send(ask('one'));
    await until(() => old.getSnapshot().status === 'offline', 'one queued');
    void old.send(ask('two'));
    await until(() => old.getSnapshot().queued === 2, 'two queued');

    const reopened = page(route, name, true);
    const chat = new SendController<{ answer: string }>(reopened.client, URL_);
    const answered: string[] = [];
    chat.subscribe(() => {
      const state = chat.getSnapshot();
      if (state.status === 'answered' && answered.at(-1) !== state.data.answer) answered.push(state.data.answer);
    });
    await chat.resume();
    expect(answered).toEqual(['to one', 'to two']);
    expect(route.ran).toHaveLength(2);
  });
});
