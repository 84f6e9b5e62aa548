/**
 * The outbox when IndexedDB fails under it: refused (private modes, denied storage, an
 * open whose upgrade aborts) or its connection closed by the browser (site data cleared
 * while the page runs). An online send never depends on it. fake-indexeddb, the real
 * reference handler in-process.
 */

import { createClient, type SendEvent } from 'answer-once';
import { indexedDbOutbox } from 'answer-once/outbox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ask, chatRoute, freshDatabase, networkSwitch, page, URL_, until } from '../../support/outbox-rig.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const answerOf = (result: { data: unknown }) => (result.data as { answer: string }).answer;

describe('the outbox when IndexedDB is unavailable', () => {
  it('an outbox IndexedDB refuses to open sends online sends directly: each answered, one model call each, and says once that offline queueing is off', async () => {
    vi.spyOn(indexedDB, 'open').mockImplementation(() => {
      throw new DOMException('The user denied permission to access the database.', 'SecurityError');
    });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const route = chatRoute();
    const tab = page(route, freshDatabase(), true);

    expect(answerOf(await tab.client.send(URL_, ask('one')))).toBe('to one');
    expect(answerOf(await tab.client.send(URL_, ask('two')))).toBe('to two');
    expect(route.ran).toHaveLength(2);
    expect(await tab.client.resume()).toEqual([]);
    expect(warn).toHaveBeenCalledOnce();
    expect(String(warn.mock.calls[0]![0])).toMatch(/^answer-once: the outbox is unavailable/);
  });

  it('an outbox whose connection the browser closed mid-answer (site data cleared) opens it again: the next send is answered, and one made offline is kept', async () => {
    const open = indexedDB.open.bind(indexedDB);
    const connections: IDBDatabase[] = [];
    vi.spyOn(indexedDB, 'open').mockImplementation((name, version) => {
      const request = open(name, version);
      request.addEventListener('success', () => connections.push(request.result));
      return request;
    });
    const route = chatRoute();
    const tab = page(route, freshDatabase(), true);
    expect(answerOf(await tab.client.send(URL_, ask('one')))).toBe('to one');

    // What clearing the site's data does to a page's open connection.
    for (const connection of connections) connection.close();
    expect(answerOf(await tab.client.send(URL_, ask('two')))).toBe('to two');
    expect(route.ran).toHaveLength(2);

    tab.network.set(false);
    const later = tab.client.send(URL_, ask('three'));
    await until(() => tab.events.some((event) => event.type === 'queued'), 'queued');
    expect((await tab.outbox.list()).map((intent) => intent.body)).toEqual(['{"content":"three"}']);
    tab.network.set(true);
    expect(answerOf(await later)).toBe('to three');
  });

  it('with Web Locks refused (site data blocked), a send made offline still goes once back online', async () => {
    const route = chatRoute();
    const network = networkSwitch(false);
    const denied = { request: () => Promise.reject(new DOMException('The request was denied.', 'SecurityError')) };
    const events: SendEvent[] = [];
    const client = createClient({
      fetch: route.fetch,
      outbox: indexedDbOutbox({ name: freshDatabase(), network, locks: denied }),
      onEvent: (event) => events.push(event),
    });
    const sent = client.send(URL_, ask('later'));
    await until(() => events.some((event) => event.type === 'queued'), 'queued');
    network.set(true);
    expect(answerOf(await sent)).toBe('to later');
    expect(route.ran).toHaveLength(1);
  });
});
