/**
 * What the streaming chaos runs share (on Redis and on PostgreSQL): killing producers
 * mid-stream a group at a time, and the check of every client's transcript against the
 * stored answer — the same bytes, each event once, in order, from one producer.
 */
import { expect } from 'vitest';
import type { EventSourceMessage } from 'eventsource-parser';
import type { ServerInstance } from './redis-instances.js';
import { type FollowedIntent, followIntent, isAnswerEvent, type StreamModel, streamAttempt } from './stream-client.js';
import { sleep } from './sleep.js';

/** One intent of a chaos run. */
export interface ChaosPlan {
  readonly id: string;
  readonly model: StreamModel;
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
export async function killMidStream(
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
export async function expectTranscriptsStored(
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
