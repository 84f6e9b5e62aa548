/**
 * A record the store loses mid-work (PROTOCOL.md § 7.2, § 14.7) on a real redis-server:
 * a FLUSHALL or only the log's key evicted while the model streams, with the first
 * caller, a reader attached through a second server instance, and a retry. The holder
 * claims its record again at its next write, so whoever comes after that gets the one
 * answer; readers wait for it instead of sending the error marker that makes a client
 * resend (and run the work again). The same faults on a 3-master Cluster (FLUSHALL on
 * every master, the log evicted on its shard).
 */

import { createClient as createAnswerClient, streaming } from 'answer-once';
import { createIdempotencyHandler, encodeKey, type IdempotencyEvent } from 'answer-once/server';
import { type ServedHandler, serve } from 'answer-once/server/node';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { requireRedisServer } from '../support/redis-server.js';
import { useRedisSuite } from '../support/redis-suite.js';
import { sleep } from '../support/sleep.js';

const hasRedis = requireRedisServer();
const encoder = new TextEncoder();
const EVENTS = 30;
const EVENT_MS = 40;
/** The answer of the model's `run`-th call: its tokens say which run wrote them. */
const answerOf = (run: number): string[] => Array.from({ length: EVENTS }, (_, index) => `token ${index} of run ${run}`);
const tokens = answerOf(1);

/** What a UI shows from an event stream: the answer's data, dropped and started again at every restart marker. */
interface Transcript {
  readonly shown: string[];
  readonly errors: number;
  readonly bytes: Uint8Array;
}

async function transcript(response: Response): Promise<Transcript> {
  let shown: string[] = [];
  let errors = 0;
  const parser = createParser({
    onEvent: (event: EventSourceMessage) => {
      if (event.event === 'answer-once.restart') shown = [];
      else if (event.event === 'answer-once.error') errors += 1;
      else shown.push(event.data);
    },
  });
  const bytes = new Uint8Array(await response.arrayBuffer());
  parser.feed(new TextDecoder().decode(bytes));
  return { shown, errors, bytes };
}

// The reconnection settings README recommends: fail fast while Redis is away, come back quickly.
const reconnectStrategy = (retries: number): number => Math.min(50 * 2 ** retries, 1_000);

describe.skipIf(!hasRedis).each([
  ['one redis-server', false],
  ['a 3-master Redis Cluster', true],
])('a record Redis loses while the model streams, on %s', (_name, cluster) => {
  const redis = useRedisSuite({ cluster });
  let calls = 0;
  let events: IdempotencyEvent[] = [];
  /** Resolves once the model sent event `n` (index from 0). */
  let sent: ((n: number) => void) | undefined;
  /** When set, the model's first run waits for it after sending event `held.after`. */
  let held: { readonly after: number; readonly until: Promise<void> } | undefined;
  let served: ServedHandler[] = [];

  /** One server instance: its own Redis connection, the same model. */
  async function instance(): Promise<(request: Request) => Promise<Response>> {
    const client = await redis.connect({ disableOfflineQueue: true, socket: { reconnectStrategy } });
    const store = await redis.open({ client });
    return createIdempotencyHandler({
      store,
      scope: () => ({ user: 'alice' }),
      onEvent: (event) => events.push(event),
      handler: () => {
        const run = (calls += 1);
        const answer = answerOf(run);
        let index = 0;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (index > 0) await sleep(EVENT_MS);
            if (index >= EVENTS) return controller.close();
            controller.enqueue(encoder.encode(`data: ${answer[index]}\n\n`));
            if (run === 1) sent?.(index);
            if (run === 1 && held?.after === index) await held.until;
            index += 1;
          },
        });
        return new Response(body, { headers: { 'Content-Type': 'text/event-stream' } });
      },
    });
  }

  const send = (id: string): Request =>
    new Request('http://app.test/api/chat', {
      method: 'POST',
      headers: { 'X-Request-Id': id, 'Content-Type': 'application/json', Prefer: 'wait=10' },
      body: '{"question":"hi"}',
    });
  const status = (id: string): Request =>
    new Request(`http://app.test/api/status/${id}`, { headers: { Prefer: 'wait=10' } });
  const afterEvent = (n: number): Promise<void> =>
    new Promise((resolve) => {
      sent = (index) => {
        if (index === n) resolve();
      };
    });
  /** Resolves with the first event that matches, within `timeoutMs` (rejects after). */
  async function eventWithin(match: (event: IdempotencyEvent) => boolean, timeoutMs: number): Promise<number> {
    const started = Date.now();
    while (Date.now() - started < timeoutMs) {
      if (events.some(match)) return Date.now() - started;
      await sleep(5);
    }
    throw new Error(`no matching event within ${timeoutMs} ms`);
  }

  /**
   * Two instances served on loopback ports and `client.fetch` posting intent `id` to
   * either; the model's first run holds after event `after` until `resume`.
   */
  async function servedPair(id: string, after: number) {
    const urls: string[] = [];
    for (const handle of [await instance(), await instance()]) {
      const one = await serve(handle);
      served.push(one);
      urls.push(one.url);
    }
    let resume!: () => void;
    held = { after, until: new Promise<void>((resolve) => (resume = resolve)) };
    const client = createAnswerClient({ streaming });
    const post = (to: 0 | 1) =>
      client.fetch(`${urls[to]}/api/chat`, {
        method: 'POST',
        headers: { 'X-Request-Id': id, 'Content-Type': 'application/json' },
        body: '{"question":"hi"}',
      });
    return { post, resume };
  }

  afterEach(async () => {
    calls = 0;
    events = [];
    sent = undefined;
    held = undefined;
    await Promise.all(served.map((one) => one.close()));
    served = [];
  });

  /** Awaits every reader's transcript and expects the one answer, whole and without an error marker, from one model call. */
  async function oneAnswer(reading: readonly Promise<Transcript>[]): Promise<Transcript[]> {
    const seen = await Promise.all(reading);
    expect(calls).toBe(1);
    for (const one of seen) {
      expect(one.errors).toBe(0);
      expect(one.shown).toEqual(tokens);
    }
    return seen;
  }

  it('after a FLUSHALL mid-stream, the holder claims its record again at its next append; a retry then and a reader on another instance get the one answer', async () => {
    const [a, b] = [await instance(), await instance()];
    const id = 'lost-record-00001';
    const first = a(send(id)); // the first caller, on instance A, reads it live
    await afterEvent(3);
    const attached = await b(status(id)); // a reader attached through instance B
    expect(attached.headers.get('x-idempotent-attached')).toBe('true');
    const reading = [transcript(await first), transcript(attached)];
    await afterEvent(8);
    await redis.everyServer('FLUSHALL');
    // The holder's next append finds the record gone and claims it again: within a few
    // flush windows and one event, not a heartbeat (a third of the 10 s lease) later.
    const after = await eventWithin((event) => event.type === 'record-lost', 2_000);
    expect(events).toContainEqual(expect.objectContaining({ type: 'record-lost', operation: 'append', reclaimed: true }));
    const retry = await b(send(id)); // a retry from a client that lost its connection
    expect(retry.headers.get('x-idempotent-attached')).toBe('true');
    reading.push(transcript(retry));
    const seen = await oneAnswer(reading);
    const fromRetry = seen[2]!;
    // Stored: what the retry read, byte for byte (the claim's generation, re-framed whole).
    const replay = await a(send(id));
    expect(replay.headers.get('x-idempotent-replayed')).toBe('true');
    expect(Buffer.from(await replay.arrayBuffer()).equals(Buffer.from(fromRetry.bytes))).toBe(true);
    console.info(`[record loss] claimed again ${after} ms after the FLUSHALL`);
  });

  it('after only the log’s key is evicted mid-stream, the holder logs the answer anew: a retry and an attached reader get it whole, one model call', async () => {
    const [a, b] = [await instance(), await instance()];
    const id = 'lost-log-0000001';
    const first = a(send(id));
    await afterEvent(3);
    const attached = await b(status(id));
    const reading = [transcript(await first), transcript(attached)];
    await afterEvent(8);
    // The log is a Stream beside the record, on its hash tag (src/redis/log-key.ts).
    const deleted = await redis.everyServer(`DEL ${encodeKey({ user: 'alice' }, id)}:log`);
    expect(deleted.filter((reply) => reply === ':1\r\n')).toHaveLength(1); // on its shard; the others say MOVED
    await sleep(4 * EVENT_MS);
    const retry = await b(send(id));
    expect(retry.headers.get('x-idempotent-attached')).toBe('true');
    reading.push(transcript(retry));
    await oneAnswer(reading);
  });

  it('when Redis restarts empty mid-stream, client.fetch callers on both instances read the one answer to its end: one model call', async (context) => {
    if (cluster) return context.skip(); // a Cluster's restart is a failover: not this spec
    const { post, resume } = await servedPair('lost-redis-00001', 8);
    const first = await post(0);
    await afterEvent(3);
    const attached = await post(1); // attaches through instance B
    expect(attached.headers.get('x-idempotent-attached')).toBe('true');
    const reading = [transcript(first), transcript(attached)];
    await afterEvent(8);
    await redis.server.restart(); // no persistence: it comes back empty
    resume(); // the model goes on once Redis is back, as a model outlives a Redis restart
    await oneAnswer(reading);
    expect(events).toContainEqual(expect.objectContaining({ type: 'record-lost', reclaimed: true }));
  });

  it('what cannot be promised: a retry between the loss and the holder’s next write runs the work again, and every caller still ends with that one answer', async () => {
    const { post, resume } = await servedPair('lost-window-0001', 5); // the model thinks after event 5: no write
    const first = await post(0);
    const reading = transcript(first);
    await afterEvent(5);
    await sleep(100); // what the first run sent so far is logged
    await redis.everyServer('FLUSHALL');
    const retry = await post(1); // before the holder wrote again: nothing says the intent runs
    expect(retry.headers.get('x-idempotent-attached')).toBeNull();
    const fromRetry = await transcript(retry);
    resume(); // the first run's next append is fenced: it yields
    const fromFirst = await reading;
    expect(calls).toBe(2);
    expect(fromRetry.shown).toEqual(answerOf(2));
    expect(fromFirst.shown).toEqual(answerOf(2)); // after a restart marker: the one answer stored
    expect(fromFirst.errors + fromRetry.errors).toBe(0);
  });
});
