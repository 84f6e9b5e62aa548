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
});
