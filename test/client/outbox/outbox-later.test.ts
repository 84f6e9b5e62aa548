/**
 * The outbox when the browser says online but nothing gets through (a captive portal, a
 * dead route): no `online` event will come, so the waiting send tries again later — after
 * 5 s, then 10 s, doubling up to a minute — never in a loop. Fake timers; fake-indexeddb.
 */

import { createClient, memoryStorageAdapter, type SendEvent } from 'answer-once';
import { indexedDbOutbox } from 'answer-once/outbox';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { chatRoute, freshDatabase, networkSwitch } from '../../support/outbox-rig.js';

afterEach(() => {
  vi.useRealTimers();
});

/** Advances the fake clock in small steps until `check` holds (bounded). */
async function advanceUntil(check: () => boolean, what: string, stepMs = 10, maxMs = 120_000): Promise<void> {
  for (let spent = 0; !check(); spent += stepMs) {
    if (spent > maxMs) throw new Error(`never: ${what}`);
    await vi.advanceTimersByTimeAsync(stepMs);
  }
}

describe('the outbox when the browser says online and nothing gets through', () => {
  it('tries the waiting send again after 5 s, then 10 s, then sends it once the route answers: no retry storm', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const route = chatRoute();
    route.reachable(false);
    const events: SendEvent[] = [];
    const client = createClient({
      fetch: route.fetch,
      outbox: indexedDbOutbox({ name: freshDatabase(), network: networkSwitch(true) }),
      storage: memoryStorageAdapter(),
      retry: { limit: 1, delay: 1, random: () => 1 },
      timeout: false,
      onEvent: (event) => events.push(event),
    });
    let answered: unknown;
    void client.send('https://chat.test/chat', { json: { content: 'behind a portal' } }).then((result) => {
      answered = result.data;
    });
    await advanceUntil(() => events.some((event) => event.type === 'queued'), 'queued');
    expect(route.requests).toHaveLength(2); // the attempt and its one retry

    await vi.advanceTimersByTimeAsync(4_900);
    expect(route.requests).toHaveLength(2); // nothing before 5 s
    await vi.advanceTimersByTimeAsync(200);
    await advanceUntil(() => route.requests.length === 4, 'the try after 5 s');
    await vi.advanceTimersByTimeAsync(9_800);
    expect(route.requests).toHaveLength(4); // the next one waits 10 s
    route.reachable(true);
    await advanceUntil(() => answered !== undefined, 'the answer', 10, 20_000);
    expect(answered).toEqual({ answer: 'to behind a portal' });
    expect(route.ran).toHaveLength(1);
  });
});
