/**
 * The streaming chaos suite: streamed intents through the real HTTP stack on
 * two instances sharing one redis-server, while 30 % of streams are cut at a random byte
 * and reconnected on the other instance, 10 % get a 503 before any work, and 5 % of
 * producers are killed mid-stream (SIGKILL of the process running them). Every client's
 * transcript — what it was given across reconnects, after restart markers — must equal
 * the stored answer, with no event twice or missing, and the model must have run once per
 * intent plus once per killed producer.
 *
 * CI runs 200 intents; `STREAM_CHAOS_INTENTS=2000 npx vitest run test/redis/stream-chaos.redis.test.ts`
 * is the full run (its numbers are in README § Benchmarks).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventSourceMessage } from 'eventsource-parser';
import { ServerInstance } from '../support/redis-instances.js';
import { RedisServer, requireRedisServer } from '../support/redis-server.js';
import { seeded } from '../support/seeded.js';
import {
  type FollowedIntent,
  followIntent,
  isAnswerEvent,
  type StreamModel,
  streamAttempt,
} from '../support/stream-client.js';

const hasRedis = requireRedisServer();
const INTENTS = Number(process.env.STREAM_CHAOS_INTENTS ?? 200);
const LEASE_MS = 1_000;
const CONCURRENCY = 32;
/** Killed producers run on a third instance, SIGKILLed with up to this many streams in flight. */
const KILL_GROUP = 10;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Plan {
  readonly id: string;
  readonly model: StreamModel;
  readonly cutAtByte: number | undefined;
  readonly fault503: boolean;
  readonly kill: boolean;
}

/** The event's index in its answer (`data: <instance>#<call>:<index>`), and who produced it. */
const parts = (event: EventSourceMessage): { producer: string; index: number } => {
  const [producer = '', index = ''] = event.data.split(':');
  return { producer, index: Number(index) };
};

describe.skipIf(!hasRedis)(`streaming chaos: ${INTENTS} streamed intents on two instances sharing one redis-server`, () => {
  let server: RedisServer;
  let steady: [ServerInstance, ServerInstance];
  const victims: ServerInstance[] = [];

  beforeAll(async () => {
    server = await RedisServer.start();
    steady = (await Promise.all(
      ['A', 'B'].map((name) => ServerInstance.start({ name, urls: [server.url], leaseMs: LEASE_MS })),
    )) as [ServerInstance, ServerInstance];
  });

  afterAll(async () => {
    await Promise.all([...(steady ?? []), ...victims].map((instance) => instance.stop()));
    await server?.stop();
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
      const victim = await ServerInstance.start({ name: `C${round}`, urls: [server.url], leaseMs: LEASE_MS });
      victims.push(victim);
      const clients = group.map(async (plan) => {
        const result = await followIntent([victim, ...steady], plan.id, plan.model, { maxAttempts: 60 });
        followed.set(plan.id, result);
      });
      // Streaming somewhere: on a starved machine a first attempt may get 503 (a store call
      // past its deadline) and the client's next one goes to a steady instance.
      await Promise.all(
        group.map((plan) =>
          Promise.any(
            [victim, ...steady].map((instance) =>
              instance.waitFor((event) => event.event === 'stream-start' && event.id === plan.id, 60_000),
            ),
          ),
        ),
      );
      await sleep(200);
      victim.kill();
      await victim.exited;
      await Promise.all(clients);
      const starts = victim.events.filter((event) => event.event === 'stream-start').length;
      const done = victim.events.filter((event) => event.event === 'stream-done').length;
      return starts - done;
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
    const mismatched: string[] = [];
    const broken: string[] = [];
    for (const [index, plan] of plans.entries()) {
      const result = followed.get(plan.id)!;
      const stored = await streamAttempt(steady[(index + 1) % 2]!, plan.id, plan.model);
      expect(stored.headers.get('x-idempotent-replayed'), plan.id).toBe('true');
      const answer = stored.events.filter(isAnswerEvent);
      const same =
        result.transcript.length === answer.length &&
        result.transcript.every((event, at) => event.id === answer[at]?.id && event.data === answer[at]?.data);
      if (!same) mismatched.push(plan.id);
      // Exactly once: one producer, indexes 0…n−1 in order, ids strictly growing.
      const producers = new Set(answer.map((event) => parts(event).producer));
      const indexes = answer.map((event) => parts(event).index);
      const offsets = answer.map((event) => Number(event.id?.split('.')[1]));
      const inOrder =
        producers.size === 1 &&
        indexes.every((value, at) => value === at) &&
        indexes.length === plan.model.events &&
        offsets.every((value, at) => at === 0 || value > offsets[at - 1]!);
      if (!inOrder) broken.push(plan.id);
    }
    expect(mismatched).toEqual([]);
    expect(broken).toEqual([]);

    const everyInstance = [...steady, ...victims];
    const calls = everyInstance.flatMap((instance) => instance.events).filter((event) => event.event === 'stream-start');
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
