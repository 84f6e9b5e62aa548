/**
 * The continued-generation scenario the multi-process specs share (on Redis and on
 * PostgreSQL): a producer killed mid-stream, a deterministic model whose re-run on the
 * other instance reproduces the answer — and every client sees one answer, no restart.
 */

import type { EventSourceMessage } from 'eventsource-parser';
import { expect } from 'vitest';
import type { ServerInstance } from './server-instances.js';
import { sleep } from './sleep.js';
import { followIntent, isAnswerEvent, RESTART_EVENT, streamAttempt } from './stream-client.js';

const data = (events: readonly EventSourceMessage[]): string[] => events.filter(isAnswerEvent).map((event) => event.data);

/**
 * Streams intent `id` from `victim` (its caller reconnecting to `steady`) and from a reader
 * attached on `steady`, SIGKILLs `victim` mid-stream, and expects both transcripts and the
 * stored answer to be the first generation's one answer, with no restart marker anywhere.
 */
export async function expectContinuedAfterKill(victim: ServerInstance, steady: ServerInstance, id: string): Promise<void> {
  const model = { events: 40, eventMs: 40, deterministic: true };
  const caller = followIntent([victim, steady], id, model);
  await victim.waitFor((event) => event.event === 'stream-start' && event.id === id, 10_000);
  await sleep(300);
  const attached = followIntent([steady], id, model); // a reader attached to the victim's generation
  await sleep(300);
  victim.kill();

  const [fromCaller, fromAttached] = await Promise.all([caller, attached]);
  const stored = await streamAttempt(steady, id, model);
  expect(stored.headers.get('x-idempotent-replayed')).toBe('true');
  const generation = fromCaller.attempts[0]?.headers.get('x-idempotent-generation');
  expect(stored.headers.get('x-idempotent-generation')).toBe(generation);
  const answer = Array.from({ length: model.events }, (_, index) => `same:${index}`);
  expect(data(stored.events)).toEqual(answer);
  for (const followed of [fromCaller, fromAttached]) {
    const seen = followed.attempts.flatMap((attempt) => attempt.events);
    expect(followed.restarts).toBe(0);
    expect(seen.some((event) => event.event === RESTART_EVENT)).toBe(false);
    expect(data(followed.transcript)).toEqual(answer);
    expect(followed.transcript.map((event) => event.id)).toEqual(stored.events.map((event) => event.id));
  }
}
