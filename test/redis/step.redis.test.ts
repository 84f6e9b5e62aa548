/**
 * The step journal across server instances (PROTOCOL.md § 15): the journal lives in the
 * intent's record in Redis, so an instance that runs the intent again after another one's
 * run failed gets that run's recorded steps, and a step the other left unfinished is
 * uncertain there too.
 */

import { type RunContext, runOnce, StepUncertainError } from 'answer-once/server';
import { describe, expect, it } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { useRedisSuite } from '../support/redis-suite.js';
import { untilAborted } from '../support/server-support.js';

const hasRedis = requireRedisServer();

describe.skipIf(!hasRedis)('ctx.step on RedisStore', () => {
  const redis = useRedisSuite();

  it("gives another instance's run of a failed intent the steps the first recorded, and calls none again", async () => {
    const [first, second] = [await redis.open(), await redis.open()];
    const calls: string[] = [];
    const work = async ({ step }: RunContext) => {
      const charge = await step('charge', ({ key }) => (calls.push(key), { id: 'ch_1' }), { kind: 'tool' });
      const cut = step('send-receipt', ({ signal }) => {
        calls.push('send-receipt');
        return untilAborted(signal);
      });
      return { charge, receipt: await cut };
    };
    const key = `order:{${crypto.randomUUID()}}`;
    await expect(runOnce(first, key, work, { maxRunMs: 200 })).rejects.toThrow();
    await expect(runOnce(second, key, work)).rejects.toThrow(StepUncertainError);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});
