/**
 * What the handler does when Redis itself misbehaves: a FLUSHALL while the model runs
 * (the record vanishes) and a key of another type (a permanent error).
 */

import { createIdempotencyHandler, encodeKey, type IdempotencyEvent } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { rawCommand, requireRedisServer } from '../support/redis-server.js';
import { useRedisSuite } from '../support/redis-suite.js';
import { gate } from '../support/server-support.js';

const hasRedis = requireRedisServer();

function send(id: string): Request {
  return new Request('http://app.test/api/chat', {
    method: 'POST',
    headers: { 'X-Request-Id': id, 'Content-Type': 'application/json' },
    body: '{"question":"hi"}',
  });
}

describe.skipIf(!hasRedis)('createIdempotencyHandler over RedisStore when Redis misbehaves', () => {
  const redis = useRedisSuite();

  it('delivers and stores again an answer whose record a FLUSHALL wiped mid-work: one model call', async () => {
    let calls = 0;
    const events: IdempotencyEvent[] = [];
    // Gates, not sleeps: the flush lands while the model runs however slow the machine is.
    const started = gate();
    const flushed = gate();
    const store = await redis.open();
    const handle = createIdempotencyHandler({
      store,
      scope: () => ({ user: 'alice' }),
      onEvent: (event) => events.push(event),
      handler: async () => {
        calls += 1;
        started.open();
        await flushed.promise;
        return Response.json({ answer: 42 });
      },
    });
    const first = handle(send('flush-00000001'));
    await started.promise;
    await rawCommand(redis.server.port, 'FLUSHALL');
    flushed.open();
    const answer = await first;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ answer: 42 });
    expect(events).toContainEqual(expect.objectContaining({ type: 'record-lost', reclaimed: true }));
    const resend = await handle(send('flush-00000001'));
    expect(resend.headers.get('X-Idempotent-Replayed')).toBe('true');
    expect(calls).toBe(1);
  });

  it('answers a key of another type (WRONGTYPE) with 500 store-failed, not a 503 to retry forever', async () => {
    const store = await redis.open();
    const handle = createIdempotencyHandler({ store, scope: () => ({ user: 'bob' }), handler: () => Response.json({}) });
    await rawCommand(redis.server.port, `SET ${encodeKey({ user: 'bob' }, 'wrong-00000001')} not-a-hash`);
    const response = await handle(send('wrong-00000001'));
    expect(response.status).toBe(500);
    expect(response.headers.get('Retry-After')).toBeNull();
    expect(await response.json()).toMatchObject({ code: 'store-failed' });
  });
});
