/**
 * The streaming chaos suite: streamed intents through the real HTTP stack on
 * two instances sharing one redis-server (and, smaller, one 3-master Redis Cluster), while 30 % of streams are cut at a random byte
 * and reconnected on the other instance, 10 % get a 503 before any work, and 5 % of
 * producers are killed mid-stream (SIGKILL of the process running them). Every client's
 * transcript — what it was given across reconnects, after restart markers — must equal
 * the stored answer, with no event twice or missing, and the model must have run once per
 * intent plus once per killed producer.
 *
 * CI runs 200 intents (60 on the Cluster); `STREAM_CHAOS_INTENTS=2000 npx vitest run
 * test/redis/stream-chaos.redis.test.ts` is the full run (its numbers are in CONTRIBUTING.md).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerInstance } from '../support/redis-instances.js';
import { RedisClusterServer, RedisServer, requireRedisServer } from '../support/redis-server.js';
import { seeded } from '../support/seeded.js';
import { type ChaosPlan, expectTranscriptsStored, killMidStream } from '../support/stream-chaos.js';
import { type FollowedIntent, followIntent } from '../support/stream-client.js';

const hasRedis = requireRedisServer();
const INTENTS = Number(process.env.STREAM_CHAOS_INTENTS ?? 200);
const CLUSTER_INTENTS = Number(process.env.STREAM_CHAOS_CLUSTER_INTENTS ?? 60);
const LEASE_MS = 1_000;
const CONCURRENCY = 32;
/** Killed producers run on a third instance, SIGKILLed with up to this many streams in flight. */
const KILL_GROUP = 10;

interface Plan extends ChaosPlan {
  readonly cutAtByte: number | undefined;
  readonly fault503: boolean;
  readonly kill: boolean;
}

/** Where the instances keep their intents: what they connect to, and how it stops. */
interface Redis {
  readonly urls: readonly string[];
  readonly cluster: boolean;
  stop(): Promise<void>;
}

async function oneServer(): Promise<Redis> {
  const server = await RedisServer.start();
  return { urls: [server.url], cluster: false, stop: () => server.stop() };
}

async function threeMasters(): Promise<Redis> {
  const cluster = await RedisClusterServer.start();
  return { urls: cluster.rootNodes.map((node) => node.url), cluster: true, stop: () => cluster.stop() };
}

describe.skipIf(!hasRedis).each([
  { INTENTS, on: 'one redis-server', start: oneServer },
  { INTENTS: CLUSTER_INTENTS, on: 'a 3-master Redis Cluster', start: threeMasters },
])('streaming chaos: $INTENTS streamed intents on two instances sharing $on', ({ INTENTS, start }) => {
  let redis: Redis;
  let steady: [ServerInstance, ServerInstance];
  const victims: ServerInstance[] = [];
  const instance = (name: string) =>
    ServerInstance.start({ name, urls: redis.urls, cluster: redis.cluster, leaseMs: LEASE_MS });

  beforeAll(async () => {
    redis = await start();
    steady = (await Promise.all(['A', 'B'].map(instance))) as [ServerInstance, ServerInstance];
  });

  afterAll(async () => {
    await Promise.all([...(steady ?? []), ...victims].map((running) => running.stop()));
    await redis?.stop();
  });

  it('gives every client the stored answer exactly once, across cuts, 503s and killed producers', {
    timeout: 600_000,
  }, async () => {
    const random = seeded(20261201);
    const plans: Plan[] = Array.from({ length: INTENTS }, () => {
      const events = 5 + Math.floor(random() * 26);
      const kill = random() < 0.05;
      // A killed producer's stream is slower, so it is surely mid-stream when its process dies.
      const model = kill ? { events: 40, eventMs: 40 } : { events, eventMs: Math.floor(random() * 12) };
      const cut = random() < 0.3;
      return {
        id: `chaos-stream-${randomUUID()}`,
        model,
        // Events take 35 bytes or more (`data: A#12:3` + `id: <generation>.<offset>`): a byte inside the body.
        cutAtByte: cut && !kill ? 1 + Math.floor(random() * model.events * 30) : undefined,
        fault503: !kill && random() < 0.1,
        kill,
      };
    });
    const followed = new Map<string, FollowedIntent>();
    const started = performance.now();

    async function runSteady(plan: Plan, index: number): Promise<void> {
      const result = await followIntent(steady, plan.id, plan.model, {
        first: index % 2,
        // The 503 (if any) refuses the first attempt; the cut (if any) hits the first one served.
        cut: (attempt) => {
          if (plan.fault503 && attempt === 0) return { fault503: true };
          return attempt === (plan.fault503 ? 1 : 0) && plan.cutAtByte ? { cutAtByte: plan.cutAtByte } : undefined;
        },
      });
      followed.set(plan.id, result);
    }

    // The killed producers, a group at a time: started on a victim instance, which is
    // SIGKILLed once all of them stream; their clients reconnect to A and B.
    async function runVictims(group: Plan[], round: number): Promise<number> {
      const victim = await instance(`C${round}`);
      victims.push(victim);
      return killMidStream(victim, steady, group, followed, 60);
    }

    const killedPlans = plans.filter((plan) => plan.kill);
    const steadyPlans = plans.filter((plan) => !plan.kill);
    let next = 0;
    const steadyRun = Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < steadyPlans.length) {
          const index = next++;
          await runSteady(steadyPlans[index]!, index);
        }
      }),
    );
    let killed = 0;
    const victimRun = (async () => {
      for (let start = 0, round = 1; start < killedPlans.length; start += KILL_GROUP, round += 1) {
        killed += await runVictims(killedPlans.slice(start, start + KILL_GROUP), round);
      }
    })();
    await Promise.all([steadyRun, victimRun]);
    const elapsed = performance.now() - started;

    // Every transcript against the stored answer, replayed by the other instance.
    await expectTranscriptsStored(plans, followed, steady);

    const everyInstance = [...steady, ...victims];
    const calls = everyInstance.flatMap((running) => running.events).filter((event) => event.event === 'stream-start');
    expect(killed).toBeGreaterThan(0);
    expect(killed).toBe(killedPlans.length); // each was mid-stream when its process died
    expect(calls).toHaveLength(INTENTS + killed);

    const attempts = [...followed.values()].reduce((sum, result) => sum + result.attempts.length, 0);
    const cuts = [...followed.values()].filter((result) => result.attempts.some((attempt) => attempt.end === 'cut')).length;
    const refused = plans.filter((plan) => plan.fault503).length;
    const restarts = [...followed.values()].filter((result) => result.restarts > 0).length;
    expect(cuts / INTENTS).toBeGreaterThan(0.15);
    console.info(
      `[stream chaos] ${INTENTS} intents in ${(elapsed / 1_000).toFixed(1)} s: ${attempts} attempts, ${cuts} streams cut and resumed, ` +
        `${refused} refused (503) before work, ${killed} producers killed (${restarts} clients saw a restart), ` +
        `${calls.length} model calls = ${INTENTS} + ${killed}; every transcript equals its stored answer`,
    );
  });
});
