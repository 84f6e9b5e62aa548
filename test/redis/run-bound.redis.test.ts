/**
 * The run bound across server instances (PROTOCOL.md § 5.7): the count lives in the
 * record, so instances sharing one Redis share it, and the exhausted answer holds on every
 * instance.
 */

import { createIdempotencyHandler } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { useRedisSuite } from '../support/redis-suite.js';

const hasRedis = requireRedisServer();
const ID = 'req-bounded-0001';

describe.skipIf(!hasRedis)('the run bound on RedisStore', () => {
  const redis = useRedisSuite();

  it('never runs the work more than maxRuns times for one intent across instances, whatever the client sends', async () => {
    let runs = 0;
    const instances = await Promise.all(
      [0, 1].map(async () =>
        createIdempotencyHandler({
          store: await redis.open(),
          scope: () => ({ user: 'u' }),
          handler: () => {
            runs += 1;
            return new Response('overloaded', { status: 503 });
          },
        }),
      ),
    );
    const answers: { status: number; code: unknown }[] = [];
    for (let sent = 0; sent < 12; sent += 1) {
      const request = new Request('http://app.test/api/chat', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-Request-Id': ID },
        body: '{"q":"hi"}',
      });
      const response = await instances[sent % 2]!(request);
      answers.push({ status: response.status, code: ((await response.json()) as { code?: unknown }).code });
    }
    expect(runs).toBe(3);
    expect(answers.slice(0, 2)).toEqual(Array(2).fill({ status: 503, code: 'intent-failed' }));
    expect(answers.slice(2)).toEqual(Array(10).fill({ status: 409, code: 'intent-exhausted' }));
    for (const instance of instances) {
      const status = await instance(new Request(`http://app.test/api/status/${ID}`));
      expect(status.status).toBe(409);
    }
  });
});
