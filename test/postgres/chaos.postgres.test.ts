/**
 * The chaos run on PostgreSQL: streamed intents through the real HTTP stack on two
 * server instances (child processes) sharing one PostgreSQL through PostgresStore, while
 * 30 % of responses are lost mid-stream (cut at a random byte, the client reconnecting
 * on the other instance), 5 % of producers are killed mid-stream (SIGKILL of the process
 * running them), and PostgreSQL itself is restarted in the middle of the run. Every
 * client's transcript must equal the stored answer, with no event twice or missing, and
 * the model must have run once per intent plus once per killed producer.
 *
 * CI runs 120 intents; `PG_CHAOS_INTENTS=1000 npx vitest run test/postgres/chaos.postgres.test.ts`
 * is a longer run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresServer, requirePostgresServer } from '../support/postgres-server.js';
import { seeded } from '../support/seeded.js';
import { ServerInstance } from '../support/server-instances.js';
import { sleep } from '../support/sleep.js';
import { chaosPlans, runChaos } from '../support/stream-chaos.js';

const hasPostgres = requirePostgresServer();
const INTENTS = Number(process.env.PG_CHAOS_INTENTS ?? 120);
/** Longer than a PostgreSQL restart takes, so the restart alone never lets a lease lapse. */
const LEASE_MS = 4_000;
const CONCURRENCY = 24;
const KILL_GROUP = 6;

describe.skipIf(!hasPostgres)(`chaos: ${INTENTS} streamed intents on two instances sharing one PostgreSQL`, () => {
  let server: PostgresServer;
  let steady: [ServerInstance, ServerInstance];
  const victims: ServerInstance[] = [];

  beforeAll(async () => {
    server = await PostgresServer.start();
    steady = (await Promise.all(
      ['A', 'B'].map((name) => ServerInstance.start({ name, postgresUrl: server.url, leaseMs: LEASE_MS })),
    )) as [ServerInstance, ServerInstance];
  });

  afterAll(async () => {
    await Promise.all([...(steady ?? []), ...victims].map((instance) => instance.stop()));
    await server?.stop();
  });

  it('gives every client the stored answer exactly once, across lost responses, killed producers and a PostgreSQL restart', {
    timeout: 600_000,
  }, async () => {
    const random = seeded(20261202);
    const plans = chaosPlans(INTENTS, random, {
      prefix: 'pg-chaos',
      eventMs: () => 5 + Math.floor(random() * 20),
      more: (plan) => plan,
    });
    let restartMs = 0;
    const steadyCount = plans.filter((plan) => !plan.kill).length;
    const { followed, killed, killedPlans, elapsedMs, attempts, cuts } = await runChaos(
      {
        plans,
        steady,
        victim: (name) => ServerInstance.start({ name, postgresUrl: server.url, leaseMs: LEASE_MS }),
        concurrency: CONCURRENCY,
        killGroup: KILL_GROUP,
        victimAttempts: 200,
        steadyAttempts: 100,
        cut: (plan, attempt) => (attempt === 0 && plan.cutAtByte ? { cutAtByte: plan.cutAtByte } : undefined),
        // PostgreSQL restarts once a third of the steady intents have started, streams in flight.
        alongside: async (started) => {
          while (started() < steadyCount / 3) await sleep(20);
          const at = performance.now();
          await server.restart('fast');
          restartMs = performance.now() - at;
        },
      },
      victims,
    );

    const everyInstance = [...steady, ...victims];
    const events = everyInstance.flatMap((instance) => instance.events);
    const calls = events.filter((event) => event.event === 'stream-start');
    const storeErrors = events.filter((event) => event.event === 'store-error').length;
    expect(killed).toBe(killedPlans); // each was mid-stream when its process died
    expect(storeErrors).toBeGreaterThan(0); // the restart was felt
    expect(calls).toHaveLength(INTENTS + killed);

    const refused = [...followed.values()].reduce(
      (sum, result) => sum + result.attempts.filter((attempt) => attempt.status === 503).length,
      0,
    );
    console.info(
      `[postgres chaos] ${INTENTS} intents in ${(elapsedMs / 1_000).toFixed(1)} s: ${attempts} attempts, ${cuts} responses lost mid-stream and resumed, ` +
        `${killed} producers killed, PostgreSQL restarted in ${restartMs.toFixed(0)} ms (${storeErrors} store errors, ${refused} answers 503), ` +
        `${calls.length} model calls = ${INTENTS} + ${killed}; every transcript equals its stored answer`,
    );
  });
});
