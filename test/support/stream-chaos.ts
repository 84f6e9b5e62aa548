/**
 * What the streaming chaos runs share (on Redis and on PostgreSQL): steady clients and
 * producers killed mid-stream a group at a time, run side by side, and the check of every
 * client's transcript against the stored answer — the same bytes, each event once, in
 * order, from one producer.
 */
import { randomUUID } from 'node:crypto';
import type { EventSourceMessage } from 'eventsource-parser';
import { expect } from 'vitest';
import type { ServerInstance } from './server-instances.js';
import { sleep } from './sleep.js';
import {
  type FollowedIntent,
  followIntent,
  isAnswerEvent,
  type StreamAttemptOptions,
  type StreamModel,
  streamAttempt,
} from './stream-client.js';

/** One intent of a chaos run. */
export interface ChaosPlan {
  readonly id: string;
  readonly model: StreamModel;
  /** Its producer is killed mid-stream; otherwise a steady client follows it. */
  readonly kill: boolean;
  /** Where the steady client's first served attempt drops its connection, if it does. */
  readonly cutAtByte: number | undefined;
}

export interface ChaosRunOptions<P extends ChaosPlan> {
  readonly plans: readonly P[];
  /** The two instances that stay up; steady clients alternate between them. */
  readonly steady: readonly [ServerInstance, ServerInstance];
  /** Starts a victim instance (one a group of killed producers runs on). */
  victim(name: string): Promise<ServerInstance>;
  /** Steady clients at once. */
  readonly concurrency: number;
  /** Killed producers a victim runs at once. */
  readonly killGroup: number;
  /** Attempts a client of a killed producer may make. */
  readonly victimAttempts: number;
  /** Attempts a steady client may make. @default followIntent's */
  readonly steadyAttempts?: number;
  /** Where attempt n of a steady intent's client drops its connection, or its fault. */
  cut(plan: P, attempt: number): StreamAttemptOptions | undefined;
  /** A fault run alongside (a store restart); `started()` is how many steady intents have started. */
  alongside?(started: () => number): Promise<void>;
}

export interface ChaosRun {
  readonly followed: Map<string, FollowedIntent>;
  /** Producers that died mid-stream. */
  readonly killed: number;
  readonly killedPlans: number;
  readonly elapsedMs: number;
  /** Every attempt, and the intents one of whose attempts was cut. */
  readonly attempts: number;
  readonly cuts: number;
}

/**
 * Runs every steady plan (`concurrency` clients at a time) while the killed plans run on
 * victim instances a group at a time (each SIGKILLed mid-stream, its clients reconnecting
 * to `steady`), and `alongside` with them; then expects every transcript to equal the
 * stored answer. `victims` collects the victim instances, for the suite to stop.
 */
export async function runChaos<P extends ChaosPlan>(
  options: ChaosRunOptions<P>,
  victims: ServerInstance[],
): Promise<ChaosRun> {
  const { plans, steady } = options;
  const followed = new Map<string, FollowedIntent>();
  const started = performance.now();
  const killedPlans = plans.filter((plan) => plan.kill);
  const steadyPlans = plans.filter((plan) => !plan.kill);
  let next = 0;
  const steadyRun = Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < steadyPlans.length) {
        const index = next++;
        const plan = steadyPlans[index]!;
        const result = await followIntent(steady, plan.id, plan.model, {
          first: index % 2,
          ...(options.steadyAttempts ? { maxAttempts: options.steadyAttempts } : {}),
          cut: (attempt) => options.cut(plan, attempt),
        });
        followed.set(plan.id, result);
      }
    }),
  );
  let killed = 0;
  const victimRun = (async () => {
    for (let start = 0, round = 1; start < killedPlans.length; start += options.killGroup, round += 1) {
      const victim = await options.victim(`C${round}`);
      victims.push(victim);
      const group = killedPlans.slice(start, start + options.killGroup);
      killed += await killMidStream(victim, steady, group, followed, options.victimAttempts);
    }
  })();
  await Promise.all([steadyRun, victimRun, options.alongside?.(() => next)]);
  const elapsedMs = performance.now() - started;
  await expectTranscriptsStored(plans, followed, steady);
  const results = [...followed.values()];
  return {
    followed,
    killed,
    killedPlans: killedPlans.length,
    elapsedMs,
    attempts: results.reduce((sum, result) => sum + result.attempts.length, 0),
    cuts: results.filter((result) => result.attempts.some((attempt) => attempt.end === 'cut')).length,
  };
}

/**
 * `count` plans drawn from `random`: 5 % of producers killed mid-stream (their model slower,
 * so surely mid-stream when the process dies), the others 5–30 events `eventMs()` apart,
 * 30 % of those cut at a byte inside the body; `more` adds a spec's own draws to each.
 */
export function chaosPlans<P extends ChaosPlan>(
  count: number,
  random: () => number,
  { prefix, eventMs, more }: { prefix: string; eventMs: () => number; more: (plan: ChaosPlan) => P },
): P[] {
  return Array.from({ length: count }, () => {
    const events = 5 + Math.floor(random() * 26);
    const kill = random() < 0.05;
    const model = kill ? { events: 40, eventMs: 40 } : { events, eventMs: eventMs() };
    const cut = random() < 0.3;
    return more({
      id: `${prefix}-${randomUUID()}`,
      model,
      // Events take 35 bytes or more (`data: A#12:3` + `id: <generation>.<offset>`): a byte inside the body.
      cutAtByte: cut && !kill ? 1 + Math.floor(random() * model.events * 30) : undefined,
      kill,
    });
  });
}

/** The event's index in its answer (`data: <instance>#<call>:<index>`), and who produced it. */
const parts = (event: EventSourceMessage): { producer: string; index: number } => {
  const [producer = '', index = ''] = event.data.split(':');
  return { producer, index: Number(index) };
};

/**
 * Starts `group` on a fresh `victim` instance, SIGKILLs it once all of them stream, and
 * lets their clients reconnect to `steady`. Resolves with how many producers died mid-stream.
 */
async function killMidStream(
  victim: ServerInstance,
  steady: readonly ServerInstance[],
  group: readonly ChaosPlan[],
  followed: Map<string, FollowedIntent>,
  maxAttempts: number,
): Promise<number> {
  const clients = group.map(async (plan) => {
    followed.set(plan.id, await followIntent([victim, ...steady], plan.id, plan.model, { maxAttempts }));
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

/**
 * Replays every intent from a steady instance (the other one than it started on) and
 * expects each client's transcript to equal the stored answer, whose events come from one
 * producer, indexes 0…n−1 in order, ids strictly growing.
 */
async function expectTranscriptsStored(
  plans: readonly ChaosPlan[],
  followed: ReadonlyMap<string, FollowedIntent>,
  steady: readonly [ServerInstance, ServerInstance],
): Promise<void> {
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
}
