/**
 * The usage a run reported lives in Redis with its answer: a server that restarts (a new
 * connection, a new RedisStore) replays it with the answer and reports the tokens avoided.
 */

import { createIdempotencyHandler, type IdempotencyEvent } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { useRedisSuite } from '../support/redis-suite.js';

const hasRedis = requireRedisServer();

describe.skipIf(!hasRedis)('usage on RedisStore', () => {
  const redis = useRedisSuite();

  /** One server instance: its own connection and store; `close` is the process going away. */
  async function instance(handler: Parameters<typeof createIdempotencyHandler>[0]['handler'], events?: IdempotencyEvent[]) {
    const client = await redis.connect();
    const store = await redis.open({ client });
    const handle = createIdempotencyHandler({
      store,
      scope: () => ({ user: 'ada', session: 's1' }),
      handler,
      ...(events ? { onEvent: (event: IdempotencyEvent) => events.push(event) } : {}),
    });
    return { handle, close: () => client.close() };
  }

  const send = () =>
    new Request('http://app.test/api/chat', { method: 'POST', headers: { 'X-Request-Id': 'usage-redis-1' }, body: 'hi' });

  it('keeps the reported usage across a server restart and reports it as the tokens a replay avoided', async () => {
    let calls = 0;
    const before = await instance((_request, { reportUsage }) => {
      calls += 1;
      reportUsage({ inputTokens: 812, outputTokens: 97 });
      return new Response('data: hello\n\n', { headers: { 'Content-Type': 'text/event-stream' } });
    });
    const answer = await (await before.handle(send())).text();
    await before.close();

    const events: IdempotencyEvent[] = [];
    const after = await instance(() => {
      calls += 1;
      return new Response('ran again');
    }, events);
    // The `answered` event goes out once the store marked the call avoided: what waitUntil keeps.
    const marked: Promise<unknown>[] = [];
    const replay = await after.handle(send(), { waitUntil: (promise) => void marked.push(promise) });
    expect(await replay.text()).toBe(answer);
    expect(replay.headers.get('X-Idempotent-Replayed')).toBe('true');
    await Promise.all(marked);
    expect(calls).toBe(1);
    expect(events.find(({ type }) => type === 'answered')).toMatchObject({
      outcome: 'replayed',
      avoided: true,
      usage: { inputTokens: 812, outputTokens: 97 },
    });
    await after.close();
  });
});
