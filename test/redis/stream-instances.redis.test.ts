/**
 * Streamed answers across server instances (PROTOCOL.md § 14) on one real redis-server:
 * two instances as child processes (test/support/instance-process.ts) over the Node adapter,
 * a client that reconnects to the other one, and a producer that is killed, frozen or
 * stopped from the other instance.
 */
import { randomUUID } from 'node:crypto';
import type { EventSourceMessage } from 'eventsource-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { scriptRoundTrips } from '../support/redis-stats.js';
import { useRedisSuite } from '../support/redis-suite.js';
import { type InstanceEvent, ServerInstance } from '../support/server-instances.js';
import { sleep } from '../support/sleep.js';
import {
  followIntent,
  isAnswerEvent,
  RESTART_EVENT,
  STOPPED_EVENT,
  type StreamAttempt,
  streamAttempt,
} from '../support/stream-client.js';
import { expectContinuedAfterKill } from '../support/stream-continued.js';

const hasRedis = requireRedisServer();
const LEASE_MS = 1_500;
const FLUSH_MS = 25;
/** Expects `attempt` to be a replay carrying the very bytes `of` was given. */
function expectReplayOf(attempt: StreamAttempt, of: StreamAttempt): void {
  expect(attempt.headers.get('x-idempotent-replayed')).toBe('true');
  expect(Buffer.from(attempt.bytes).equals(Buffer.from(of.bytes))).toBe(true);
}

const newId = (): string => `stream-${randomUUID()}`;
const data = (events: readonly EventSourceMessage[]): string[] => events.filter(isAnswerEvent).map((event) => event.data);

describe.skipIf(!hasRedis)('streamed answers across two instances sharing one redis-server', () => {
  const redis = useRedisSuite();
  let a: ServerInstance;
  let b: ServerInstance;

  const all = (): InstanceEvent[] => [...a.events, ...b.events];
  const modelCalls = (id: string): InstanceEvent[] =>
    all().filter((event) => event.event === 'stream-start' && event.id === id);

  beforeEach(async () => {
    [a, b] = (await Promise.all(
      ['A', 'B'].map((name) => ServerInstance.start({ name, urls: redis.urls, leaseMs: LEASE_MS, flushMs: FLUSH_MS })),
    )) as [ServerInstance, ServerInstance];
  });

  afterEach(async () => {
    await Promise.all([a, b].map((instance) => instance?.stop()));
  });

  it('resumes a stream cut after k events on the other instance with Last-Event-ID: events k+1…n once, one model call', async () => {
    const id = newId();
    const model = { events: 30, eventMs: 20 };
    const first = await streamAttempt(a, id, model, { cutAfterEvents: 7 });
    expect(first).toMatchObject({ status: 200, end: 'cut' });
    const rest = await streamAttempt(b, id, model, { lastEventId: first.events.at(-1)!.id });
    expect(rest).toMatchObject({ status: 200, end: 'clean' });
    expect(rest.headers.get('x-idempotent-attached')).toBe('true');
    const expected = Array.from({ length: 30 }, (_, index) => `A#1:${index}`);
    expect([...data(first.events), ...data(rest.events)]).toEqual(expected);
    expect(modelCalls(id)).toHaveLength(1);

    // Once it ended, the same position replays the rest from either instance, still one call.
    const replayed = await streamAttempt(a, id, model, { lastEventId: first.events.at(-1)!.id });
    expectReplayOf(replayed, rest);
    expect(modelCalls(id)).toHaveLength(1);
  });

  it('restarts on the other instance when the producer is killed (SIGKILL): a restart marker, one more model call, nothing of the dead generation after it', async () => {
    const id = newId();
    const model = { events: 40, eventMs: 40 };
    const caller = followIntent([a, b], id, model);
    await a.waitFor((event) => event.event === 'stream-start' && event.id === id, 10_000);
    await sleep(300);
    const attached = followIntent([b], id, model); // a reader on B, attached to A's generation
    await sleep(300);
    a.kill();

    const [fromCaller, fromAttached] = await Promise.all([caller, attached]);
    const stored = await streamAttempt(b, id, model);
    expect(stored.headers.get('x-idempotent-replayed')).toBe('true');
    const answer = Array.from({ length: 40 }, (_, index) => `B#1:${index}`);
    expect(data(stored.events)).toEqual(answer);
    for (const followed of [fromCaller, fromAttached]) {
      expect(followed.restarts).toBeGreaterThanOrEqual(1);
      expect(data(followed.transcript)).toEqual(answer);
      expect(followed.transcript.map((event) => event.id)).toEqual(stored.events.map((event) => event.id));
      // Everything after the first restart marker is the new generation's.
      const seen = followed.attempts.flatMap((attempt) => attempt.events);
      const marker = seen.findIndex((event) => event.event === RESTART_EVENT);
      expect(seen.slice(marker + 1).filter((event) => event.data.startsWith('A#'))).toEqual([]);
    }
    expect(modelCalls(id).map((event) => event.instance)).toEqual(['A', 'B']);
  });

  it('continues on the other instance when the producer is killed (SIGKILL) and the re-run reproduces its answer: no restart marker, every event once', async () => {
    const id = newId();
    await expectContinuedAfterKill(a, b, id);
    expect(modelCalls(id).map((event) => event.instance)).toEqual(['A', 'B']);
  });

  it('fences out a producer frozen (SIGSTOP) past its lease: when it thaws, its appends are rejected and its model is cancelled', async () => {
    const id = newId();
    const model = { events: 60, eventMs: 30, deaf: true };
    const first = await streamAttempt(a, id, model, { cutAfterEvents: 5 });
    a.pause();
    try {
      await sleep(LEASE_MS + 300);
      const taken = await followIntent([b], id, model, { lastEventId: first.events.at(-1)!.id, transcript: first.events });
      expect(taken.restarts).toBe(1);
      expect(data(taken.transcript)).toEqual(Array.from({ length: 60 }, (_, index) => `B#1:${index}`));
    } finally {
      a.resume();
    }
    await a.waitFor((event) => event.event === 'append-rejected' && event.reason === 'fenced', 10_000);
    await a.waitFor((event) => event.event === 'stream-cancelled' && event.id === id, 10_000);
    expect(a.events.some((event) => event.event === 'stream-done' && event.id === id)).toBe(false);
    const replay = await streamAttempt(a, id, model);
    expect(data(replay.events)).toEqual(Array.from({ length: 60 }, (_, index) => `B#1:${index}`));
    expect(modelCalls(id).map((event) => event.instance)).toEqual(['A', 'B']);
  });

  it('stops the producer from the other instance within a flush window; the partial answer is replayed and the model never runs again', async () => {
    const id = newId();
    const model = { events: 500, eventMs: 20 };
    const caller = streamAttempt(a, id, model);
    await a.waitFor((event) => event.event === 'stream-start' && event.id === id, 10_000);
    await sleep(300);
    const stoppedAt = Date.now();
    const stop = await fetch(`${b.url}/api/status/${id}`, { method: 'DELETE', headers: { 'x-request-id': id } });
    expect(stop.status).toBe(202);
    expect(await stop.json()).toMatchObject({ state: 'stopping' });
    const aborted = await a.waitFor((event) => event.event === 'stream-aborted' && event.id === id, 5_000);
    // Heard at once (an HTTP request, a script, a publish and a look; tens of ms idle) — not at the
    // stop watch's next turn (60 s) nor at the lease: the bound leaves room for a loaded 2-core machine.
    expect(aborted.at! - stoppedAt).toBeLessThan(FLUSH_MS + 500);

    const fresh = await caller;
    expect(fresh).toMatchObject({ status: 200, end: 'clean' });
    expect(fresh.events.at(-1)?.event).toBe(STOPPED_EVENT);
    const partial = data(fresh.events).length - 1;
    expect(partial).toBeGreaterThan(5);
    expect(partial).toBeLessThan(100);

    for (const instance of [b, a]) {
      const replay = await streamAttempt(instance, id, model);
      expectReplayOf(replay, fresh);
      expect(replay.headers.get('x-idempotent-stopped')).toBe('true');
    }
    expect(modelCalls(id)).toHaveLength(1);
  });

  it('replays a 2,000-event answer from the other instance byte for byte', async () => {
    const id = newId();
    const model = { events: 2_000, eventMs: 0 };
    const fresh = await streamAttempt(a, id, model);
    expect(data(fresh.events)).toHaveLength(2_000);
    const replay = await streamAttempt(b, id, model);
    expectReplayOf(replay, fresh);
    expect(modelCalls(id)).toHaveLength(1);
  });

  it('streams an answer in acquire + one append per flush window + complete round trips, counted by Redis', async () => {
    const warm = newId();
    await streamAttempt(a, warm, { events: 3, eventMs: 30 }); // Redis's script cache
    const id = newId();
    const model = { events: 40, eventMs: 25 };
    let elapsed = 0;
    const calls = await redis.calls(async () => {
      const started = performance.now();
      const fresh = await streamAttempt(a, id, model);
      elapsed = performance.now() - started;
      expect(data(fresh.events)).toHaveLength(40);
    });
    const trips = scriptRoundTrips(calls);
    console.log(`[stream] ${trips} Redis round trips for a ${Math.round(elapsed)} ms answer (flush ${FLUSH_MS} ms):`, calls);
    // The goal: at most 2 + generation time / flush window, heartbeats and the stop watch included.
    expect(trips).toBeLessThanOrEqual(2 + elapsed / FLUSH_MS);
  });
});
