/**
 * One send kept in the outbox that two tabs of the origin hold (the tab that made it
 * offline, and a tab that resumed it): whichever sends it, both end with its answer, and
 * the model runs once. fake-indexeddb shared by both pages; the reference handler in-process.
 */
import { describe, expect, it } from 'vitest';
import { ask, chatRoute, freshDatabase, page, URL_, until } from '../../support/outbox-rig.js';
import { within } from '../../support/token-stream.js';

describe('two tabs holding the same queued send', () => {
  it('when the network returns, both end with the answer: the tab that made it offline too, one model call', async () => {
    const route = chatRoute();
    const name = freshDatabase();
    const made = page(route, name, false);
    const sent = made.client.send(URL_, ask('from a train'));
    await until(() => made.events.some((event) => event.type === 'queued'), 'queued');

    // Another tab, online, resumes it and is answered first.
    const other = page(route, name, true);
    const [resumed] = await other.client.resume();
    expect(resumed).toMatchObject({ ok: true, result: { data: { answer: 'to from a train' } } });

    made.network.set(true);
    const result = await within(sent, 2_000);
    expect(result.data).toEqual({ answer: 'to from a train' });
    expect(result.requestId).toBe(resumed!.requestId);
    expect(route.ran).toEqual([result.requestId]);
    expect(await made.outbox.list()).toEqual([]);
  });

  it('a tab that gave up on the send leaves it to the tab still waiting: reopened online after that tab closed, it is answered, one model call', async () => {
    const route = chatRoute();
    const name = freshDatabase();
    const made = page(route, name, false);
    void made.client.send(URL_, ask('still wanted'));
    await until(() => made.events.some((event) => event.type === 'queued'), 'queued');

    // A second tab, offline too, resumes it, then gives up on it (its chat closed, Stop).
    const other = page(route, name, false);
    const giveUp = new AbortController();
    const given = other.client.resume({ signal: giveUp.signal });
    await until(() => other.events.some((event) => event.type === 'queued'), 'queued in the other tab');
    giveUp.abort();
    expect((await given)[0]).toMatchObject({ ok: false });

    // The tab that made it stays offline, as a closed one would (the Chromium spec closes it
    // for real); a page reopened online resumes the send.
    const reopened = page(route, name, true);
    const [outcome] = await reopened.client.resume();
    expect(outcome).toMatchObject({ ok: true, result: { data: { answer: 'to still wanted' } } });
    expect(route.ran).toHaveLength(1);
  });

  it('the last tab to give up on it ends it: never sent, nothing left to resume', async () => {
    const route = chatRoute();
    const name = freshDatabase();
    const made = page(route, name, false);
    const mine = new AbortController();
    const sent = made.client.send(URL_, { ...ask('never mind'), signal: mine.signal });
    await until(() => made.events.some((event) => event.type === 'queued'), 'queued');
    const other = page(route, name, false);
    const theirs = new AbortController();
    const given = other.client.resume({ signal: theirs.signal });
    await until(() => other.events.some((event) => event.type === 'queued'), 'queued in the other tab');

    theirs.abort();
    await given;
    mine.abort();
    await expect(sent).rejects.toThrow();

    const reopened = page(route, name, true);
    expect(await reopened.client.resume()).toEqual([]);
    expect(route.requests).toEqual([]);
  });
});
