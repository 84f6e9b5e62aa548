/**
 * A duplicate storm on the HTTP-only store: 100 sends of one intent, spread over two
 * handler instances that share nothing but the database behind Upstash's REST API,
 * each with its own `@upstash/redis` client. One run; every caller gets the whole answer.
 */

import { createIdempotencyHandler } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { parseEvents, sseAnswer, tokens } from '../support/stream-support.js';
import { useUpstashSuite } from '../support/upstash-suite.js';

const EVENTS = 20;
const ALL = Array.from({ length: EVENTS }, (_, index) => `token ${index}`);

describe.skipIf(!requireRedisServer())('UpstashStore under a duplicate storm', () => {
  const suite = useUpstashSuite();

  it('runs 100 duplicates sent across 2 handler instances once, and gives every caller the whole answer', async () => {
    let runs = 0;
    const instances = [0, 1].map(() =>
      createIdempotencyHandler({
        store: suite.open({ pollIntervalMs: 20, maxPollIntervalMs: 100 }),
        scope: () => ({ user: 'alice', session: 'storm' }),
        handler: () => {
          runs += 1;
          return sseAnswer(EVENTS, { delayMs: 10 });
        },
      }),
    );
    const send = (index: number): Promise<Response> =>
      instances[index % 2]!(
        new Request('http://app.test/api/chat', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'storm-0000000001', Prefer: 'wait=30' },
          body: JSON.stringify({ question: 'once?' }),
        }),
      );

    const responses = await Promise.all(Array.from({ length: 100 }, (_, index) => send(index)));
    const bodies = await Promise.all(responses.map((response) => response.text()));

    expect(runs).toBe(1);
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 100 }, () => 200));
    for (const body of bodies) expect(tokens(parseEvents(body))).toEqual(ALL);
  });
});
